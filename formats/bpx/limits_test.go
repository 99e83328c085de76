package bpx

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// limits sets the package limits for one test.
func limits(t *testing.T, objects int, table int64) {
	MaxObjects, MaxTableBytes = objects, table
	t.Cleanup(func() { MaxObjects, MaxTableBytes = DefaultMaxObjects, DefaultMaxTableBytes })
}

func wantFormatError(t *testing.T, err error, rule, says string) {
	t.Helper()
	var fe *formats.FormatError
	if !errors.As(err, &fe) || fe.Rule != rule || fe.File == "" || !strings.Contains(err.Error(), "offset") || !strings.Contains(err.Error(), says) {
		t.Fatalf("want a %s error naming the file and offset and saying %q, got %v", rule, says, err)
	}
}

func openNamed(t *testing.T, b []byte) (*File, error) {
	t.Helper()
	return NewReader(bytes.NewReader(b), int64(len(b)), formats.Name("hostile.bpx"))
}

// TestBPXSDStringsLinear: decoding BPXSD strings costs what the input holds. A
// 130 KB object of 65,025 empty strings used to copy the rest of the buffer per
// string (8 GB, seconds of CPU).
func TestBPXSDStringsLinear(t *testing.T) {
	b := []byte{1}
	b = le.AppendUint64(b, DJB2("s"))
	b = append(b, byte(Array), 255)
	for range 255 {
		b = append(b, byte(Array), 255)
		for range 255 {
			b = append(b, byte(String), 0)
		}
	}
	var err error
	start := time.Now()
	n := testfiles.Allocated(func() { _, err = DecodeBPXSD(b) })
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); n > 100*uint64(len(b)) || took > 2*time.Second {
		t.Errorf("decoding %d bytes allocated %d bytes in %v", len(b), n, took)
	}
}

// TestSmallSectionsBounded: a strings or metadata section declaring more than
// MaxTableBytes is refused before it is read; raised, the limit lets it through.
func TestSmallSectionsBounded(t *testing.T) {
	big := make([]byte, 2<<20) // xz makes this a few hundred bytes
	for _, typ := range []uint8{SectionStrings, SectionBPXSD} {
		b, err := Encode(TypePackage, [16]byte{}, []SectionBytes{{Type: typ, Data: big, Compression: XZ, Check: WeakCheck}})
		if err != nil {
			t.Fatal(err)
		}
		limits(t, DefaultMaxObjects, 1<<20)
		f, err := openNamed(t, b)
		if err != nil {
			t.Fatal(err)
		}
		var perr error
		if n := testfiles.Allocated(func() { _, perr = ReadPackage(f) }); n > 1<<20 {
			t.Errorf("section type %#x: refusing it allocated %d bytes", typ, n)
		}
		wantFormatError(t, perr, RuleSize, "--max-table")
		MaxTableBytes = 4 << 20
		if _, err := ReadPackage(f); typ == SectionStrings && err != nil {
			t.Errorf("raised limit: %v", err)
		}
	}
}

// emptyObjects is a version 2 package of n empty objects all named by one
// name of nameLen bytes, its sections xz-compressed: a few kilobytes that once
// cost n × nameLen bytes.
func emptyObjects(t *testing.T, n, nameLen int) []byte {
	t.Helper()
	strs := append(bytes.Repeat([]byte("n"), nameLen), 0)
	table := make([]byte, 0, n*objectEntrySize)
	for range n {
		table = le.AppendUint64(table, 0)
		table = le.AppendUint32(table, 0) // every object named by the same string
		table = le.AppendUint32(table, 2) // the data section
		table = le.AppendUint32(table, 0)
	}
	b, err := Encode(TypePackage, [16]byte{}, []SectionBytes{
		{Type: SectionStrings, Data: strs, Compression: XZ, Check: WeakCheck},
		{Type: SectionObjectTable, Data: table, Compression: XZ, Check: WeakCheck},
		{Type: SectionData, Data: nil, Check: CRC32},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSharedNamesHeldOnce: 200,000 objects naming one 4,000-byte name hold it
// once (it used to be copied per object: 800 MB from a file of a few KB).
func TestSharedNamesHeldOnce(t *testing.T) {
	const n = 200_000
	b := emptyObjects(t, n, 4000)
	f, err := openNamed(t, b)
	if err != nil {
		t.Fatal(err)
	}
	var p *Package
	if a := testfiles.Allocated(func() { p, err = ReadPackage(f) }); a > 64<<20 {
		t.Errorf("a %d-byte file of %d objects allocated %d bytes", len(b), n, a)
	}
	if err != nil || len(p.Objects) != n || len(p.Objects[n-1].Name) != 4000 {
		t.Fatalf("%v", err)
	}
	// A name longer than any path is refused.
	f, _ = openNamed(t, emptyObjects(t, 1, MaxNameBytes+1))
	_, err = ReadPackage(f)
	wantFormatError(t, err, formats.RuleName, "longer than")
}

// TestObjectCountBounded: a table or a version 1 package declaring more objects
// than MaxObjects is refused (the table before it is read).
func TestObjectCountBounded(t *testing.T) {
	limits(t, 1000, DefaultMaxTableBytes)
	f, _ := openNamed(t, emptyObjects(t, 1001, 1))
	_, err := ReadPackage(f)
	wantFormatError(t, err, RuleCount, "--max-objects")
	f, _ = openNamed(t, emptyObjects(t, 1000, 1))
	if _, err := ReadPackage(f); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	// Version 1: [size u64][name u32] per object in the data.
	v1 := bytes.Repeat(make([]byte, 12), 1001)
	b, err := Encode(TypePackage, [16]byte{}, []SectionBytes{
		{Type: SectionStrings, Data: []byte("a\x00"), Check: WeakCheck},
		{Type: SectionData, Data: v1, Compression: XZ, Check: CRC32},
	})
	if err != nil {
		t.Fatal(err)
	}
	b[20] = 1
	le.PutUint32(b[4:], headerChecksum(b[:HeaderSize+2*SectionEntrySize]))
	f, err = openNamed(t, b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadPackage(f)
	wantFormatError(t, err, RuleCount, "more than 1000 objects")
}

// TestOverlappingSections: sections sharing bytes, or lying on the header and
// table, are refused when the table is read.
func TestOverlappingSections(t *testing.T) {
	good, err := Encode('X', [16]byte{}, []SectionBytes{
		{Type: 1, Data: []byte("123456789"), Check: CRC32},
		{Type: 1, Data: []byte("abcdefghi"), Check: CRC32},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openNamed(t, good); err != nil {
		t.Fatal(err)
	}
	edit := func(sec int, ptr uint64) []byte {
		b := append([]byte{}, good...)
		le.PutUint64(b[HeaderSize+SectionEntrySize*sec:], ptr)
		le.PutUint32(b[4:], headerChecksum(b[:HeaderSize+2*SectionEntrySize]))
		return b
	}
	first := le.Uint64(good[HeaderSize:])
	_, err = openNamed(t, edit(1, first+4)) // section 1 starts inside section 0
	wantFormatError(t, err, formats.RuleOverlap, "overlaps section 0")
	_, err = openNamed(t, edit(1, first)) // both the same bytes
	wantFormatError(t, err, formats.RuleOverlap, "overlaps section")
	_, err = openNamed(t, edit(0, 50)) // on the section table
	wantFormatError(t, err, formats.RuleOverlap, "overlaps the header")
}
