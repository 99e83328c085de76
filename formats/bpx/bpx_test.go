package bpx

import (
	"bytes"
	"errors"
	"hash/crc32"
	"os"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// shared reads one of the SDK-written files (see internal/testfiles).
func shared(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(testfiles.Path(t, "bpx", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// payload is what 04_xz_crc32.bpx holds, by the rule its README gives.
func payload() []byte {
	b := make([]byte, 100_000)
	for i := range b {
		b[i] = byte(i%251) ^ byte(i/1000%256)
	}
	return b
}

func openBytes(t testing.TB, b []byte) *File {
	t.Helper()
	f, err := NewReader(bytes.NewReader(b), int64(len(b)), formats.Name("test.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCRC(t *testing.T) {
	// Vectors from docs/formats/bpx.md §4; the standard CRC-32 of the same input
	// differs, which is the point of keeping BPX's own.
	for in, want := range map[string]uint32{"123456789": 0xFF124790, "": 0, "a": 0xFF00004F} {
		if got := CRC([]byte(in)); got != want {
			t.Errorf("CRC(%q) = 0x%08X, want 0x%08X", in, got, want)
		}
		if in != "" && crc32.ChecksumIEEE([]byte(in)) == want {
			t.Errorf("CRC(%q) equals the standard CRC-32", in)
		}
	}
	if got := WeakSum([]byte("Hello, BPX!")); got != 0x34B {
		t.Errorf("WeakSum = 0x%X, want 0x34B", got)
	}
}

func TestSDKFiles(t *testing.T) {
	payload := payload()
	sd := shared(t, "06_bpxsd_all_types.sd")
	cases := []struct {
		file     string
		typ      byte
		sections [][]byte
		flags    []Flags
	}{
		{"01_empty_typeX.bpx", 'X', nil, nil},
		{"02_weak_plain.bpx", 'X', [][]byte{[]byte("Hello, BPX!")}, []Flags{FlagWeak}},
		{"03_crc32_plain.bpx", 'X', [][]byte{[]byte("123456789")}, []Flags{FlagCRC32}},
		{"04_xz_crc32.bpx", 'X', [][]byte{payload}, []Flags{FlagXZ | FlagCRC32}},
		{"06_bpxsd_section.bpx", 'X', [][]byte{sd}, []Flags{FlagWeak}},
	}
	for _, tc := range cases {
		f := openBytes(t, shared(t, tc.file))
		if f.Header.Type != tc.typ || f.Header.Version != 2 || len(f.Sections) != len(tc.sections) {
			t.Fatalf("%s: type %c version %d, %d sections", tc.file, f.Header.Type, f.Header.Version, len(f.Sections))
		}
		for i, want := range tc.sections {
			got, err := f.ReadSection(i)
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			if !bytes.Equal(got, want) || f.Sections[i].Flags != tc.flags[i] {
				t.Errorf("%s section %d: %d bytes, flags %v", tc.file, i, len(got), f.Sections[i].Flags)
			}
		}
	}
}

// TestWriteLikeSDK writes the SDK's single-section files again and gets their
// bytes back (TypeExt of 02 carries bytes the SDK put there).
func TestWriteLikeSDK(t *testing.T) {
	for _, tc := range []struct {
		file  string
		data  string
		check Check
	}{{"03_crc32_plain.bpx", "123456789", CRC32}, {"02_weak_plain.bpx", "Hello, BPX!", WeakCheck}} {
		want := shared(t, tc.file)
		var ext [16]byte
		copy(ext[:], want[24:40])
		got, err := Encode('X', ext, []SectionBytes{{Type: want[40+20], Data: []byte(tc.data), Check: tc.check}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: wrote\n% x\nwant\n% x", tc.file, got, want)
		}
	}
}

func TestRoundTripCompression(t *testing.T) {
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i*7 + i/1000)
	}
	for _, comp := range []Compression{NoCompression, XZ, Zlib} {
		b, err := Encode('X', [16]byte{}, []SectionBytes{
			{Type: 1, Data: data, Compression: comp, Check: CRC32},
			{Type: 2, Data: []byte("small, never compressed"), Compression: comp, Check: WeakCheck},
		})
		if err != nil {
			t.Fatal(err)
		}
		f := openBytes(t, b)
		wantFlag := map[Compression]Flags{NoCompression: 0, XZ: FlagXZ, Zlib: FlagZlib}[comp]
		if f.Sections[0].Flags != wantFlag|FlagCRC32 || f.Sections[1].Flags != FlagWeak {
			t.Errorf("compression %d: flags %v, %v", comp, f.Sections[0].Flags, f.Sections[1].Flags)
		}
		if comp != NoCompression && f.Sections[0].CSize >= f.Sections[0].Size {
			t.Errorf("compression %d: csize %d not below size %d", comp, f.Sections[0].CSize, f.Sections[0].Size)
		}
		got, err := f.ReadSection(0)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("compression %d: %v", comp, err)
		}
		if f.Header.FileSize != uint64(len(b)) {
			t.Errorf("file_size %d, file %d bytes", f.Header.FileSize, len(b))
		}
	}
}

func wantRule(t *testing.T, err error, rule string) {
	t.Helper()
	var fe *formats.FormatError
	if !errors.As(err, &fe) || fe.Rule != rule {
		t.Fatalf("want a %s error, got %v", rule, err)
	}
	if fe.File == "" || !bytes.Contains([]byte(err.Error()), []byte("offset")) {
		t.Fatalf("error does not name file and offset: %v", err)
	}
}

func TestHostileContainers(t *testing.T) {
	good, err := Encode('X', [16]byte{}, []SectionBytes{{Type: 1, Data: []byte("123456789"), Check: CRC32}})
	if err != nil {
		t.Fatal(err)
	}
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	fix := func(b []byte) []byte { // recompute the header checksum after an edit
		le.PutUint32(b[4:], headerChecksum(b[:HeaderSize+SectionEntrySize*int(le.Uint32(b[16:]))]))
		return b
	}
	open := func(b []byte) error {
		_, err := NewReader(bytes.NewReader(b), int64(len(b)), formats.Name("hostile.bpx"))
		return err
	}
	wantRule(t, open(good[:20]), formats.RuleTruncated)
	wantRule(t, open(mod(func(b []byte) []byte { b[0] = 'Q'; return b })), formats.RuleMagic)
	wantRule(t, open(mod(func(b []byte) []byte { b[20] = 3; return fix(b) })), formats.RuleVersion)
	wantRule(t, open(mod(func(b []byte) []byte { b[30] = 1; return b })), RuleChecksum)
	wantRule(t, open(mod(func(b []byte) []byte { le.PutUint32(b[16:], 0xFFFFFFFF); return b })), formats.RuleBounds)
	wantRule(t, open(mod(func(b []byte) []byte { le.PutUint64(b[40:], 1<<62); return fix(b) })), formats.RuleBounds)
	wantRule(t, open(mod(func(b []byte) []byte { b[61] |= byte(FlagWeak); return fix(b) })), RuleFlags)
	// A lying file_size is tolerated.
	if err := open(mod(func(b []byte) []byte { le.PutUint64(b[8:], 12345); return fix(b) })); err != nil {
		t.Errorf("a wrong file_size refused: %v", err)
	}
	// A bad section checksum is found when the section is read.
	f := openBytes(t, mod(func(b []byte) []byte { b[len(b)-1] = 'X'; return b }))
	_, err = f.ReadSection(0)
	wantRule(t, err, RuleChecksum)
	// Sections are found by pointer: a section moved after a gap still reads.
	moved := mod(func(b []byte) []byte {
		b = append(b[:64], append([]byte("junk"), b[64:]...)...)
		le.PutUint64(b[40:], 68)
		return fix(b)
	})
	if got, err := openBytes(t, moved).ReadSection(0); err != nil || string(got) != "123456789" {
		t.Errorf("moved section: %q, %v", got, err)
	}
}

// TestXZBomb: a section whose stream inflates far past its declared size is
// refused after reading just past that size.
func TestXZBomb(t *testing.T) {
	zeros := make([]byte, 16<<20) // 160 times the size declared below
	for _, comp := range []Compression{XZ, Zlib} {
		b, err := Encode('X', [16]byte{}, []SectionBytes{{Type: 1, Data: zeros, Compression: comp, Check: NoCheck}})
		if err != nil {
			t.Fatal(err)
		}
		le.PutUint32(b[40+12:], 100_000) // declare 100 kB
		le.PutUint32(b[4:], headerChecksum(b[:64]))
		f := openBytes(t, b)
		_, err = f.ReadSection(0)
		wantRule(t, err, RuleSize)
		le.PutUint32(b[40+12:], 1<<32-1) // declare more than it holds
		le.PutUint32(b[4:], headerChecksum(b[:64]))
		_, err = openBytes(t, b).ReadSection(0)
		wantRule(t, err, RuleSize)
	}
}

// TestCRCSlicing checks the eight-byte update against the byte-at-a-time
// definition of docs/formats/bpx.md §4, over lengths and split points that
// cross the eight-byte steps.
func TestCRCSlicing(t *testing.T) {
	var table [256]uint32
	for i := range table {
		v := uint32(i) >> 1
		if i&1 != 0 {
			v ^= 0xEDB88320
		}
		table[i] = v
	}
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i*131 + i>>3)
	}
	for n := range len(data) {
		crc := uint32(0xFFFFFFFF)
		for _, b := range data[:n] {
			crc = crc>>8 ^ table[byte(crc)^b]
		}
		want := crc ^ 0xFFFFFFFF
		c := NewBPXCRC()
		c.Write(data[:n/3])
		c.Write(data[n/3 : n])
		if got := c.Sum32(); got != want || CRC(data[:n]) != want {
			t.Fatalf("%d bytes: 0x%08X in two writes, 0x%08X in one, want 0x%08X", n, got, CRC(data[:n]), want)
		}
	}
}

func BenchmarkChecksums(b *testing.B) {
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.Run("crc", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			CRC(data)
		}
	})
	b.Run("weak", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			WeakSum(data)
		}
	})
}
