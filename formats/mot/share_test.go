package mot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// sharedData is a little-endian Bayonetta 2 motion of n type 4 records (float
// keys, 16 bytes each) of count keys each, record i's data at dataAt(i)
// bytes into one block of count keys placed after the table.
func sharedData(n, count int, dataAt func(i int) int) []byte {
	le := binary.LittleEndian
	b := make([]byte, Bayo2Header)
	copy(b, Magic)
	le.PutUint32(b[4:], Bayo2Tag)
	le.PutUint16(b[10:], 100) // frames
	le.PutUint32(b[12:], Bayo2Header)
	le.PutUint32(b[16:], uint32(n))
	b[0x15] = 0x3c
	block := Bayo2Header + RecordSize*(n+1)
	for i := range n {
		off := len(b)
		r := make([]byte, RecordSize)
		le.PutUint16(r, uint16(i))
		r[3] = 4
		le.PutUint16(r[4:], uint16(count))
		le.PutUint32(r[8:], uint32(block+dataAt(i)-off))
		b = append(b, r...)
	}
	term := make([]byte, RecordSize)
	le.PutUint16(term, TerminatorBone)
	b = append(b, term...)
	return append(b, make([]byte, 16*count+64)...) // keys all at frame 0
}

// TestSharedRecordData: records pointing at the same bytes are copied and
// decoded once: 4,000 records sharing one 512 KiB block (a 570 KB file) used to
// cost 2 GB; records whose data partly overlap are refused.
func TestSharedRecordData(t *testing.T) {
	const n, count = 4000, 32767
	b := sharedData(n, count, func(int) int { return 0 })
	var m *Motion
	var err error
	var took time.Duration
	a := testfiles.Allocated(func() {
		start := time.Now()
		m, err = Parse(b, formats.Lenient(), formats.Name("shared.mot"))
		took = time.Since(start)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Records) != n || len(m.Records[n-1].Data) != 16*count {
		t.Fatalf("%d records", len(m.Records))
	}
	if a > 8*uint64(len(b)) || took > 2*time.Second {
		t.Errorf("parsing a %d-byte file allocated %d bytes in %v", len(b), a, took)
	}
	if &m.Records[0].Data[0] != &m.Records[n-1].Data[0] {
		t.Error("records pointing at the same bytes do not share them")
	}
	// Partly overlapping data: refused, naming the record and the other.
	_, err = Parse(sharedData(2, 4, func(i int) int { return 16 * i }), formats.Lenient(), formats.Name("overlap.mot"))
	var ve *formats.ValidationError
	if !errors.As(err, &ve) || !ve.HasRule(formats.RuleOverlap) {
		t.Fatalf("partly overlapping records: %v", err)
	}
	t.Log(err)
}

// WriteDump's JSON, read back by ParseDump, holds every record's values at every
// frame as Evaluate gives them, bit for bit.
func TestDumpRoundTrip(t *testing.T) {
	for _, name := range testfiles.All("mot", ".mot") {
		m, err := Open(name)
		if err != nil {
			continue // the hostile ones
		}
		var b bytes.Buffer
		if err := WriteDump(&b, m); err != nil {
			t.Fatal(err)
		}
		d, err := ParseDump(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := m.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		if d.FrameCount != m.Frames || len(d.Records) != len(want) {
			t.Fatalf("%s: %d frames %d records, want %d and %d", name, d.FrameCount, len(d.Records), m.Frames, len(want))
		}
		for i, r := range d.Records {
			for f, v := range r.Values {
				if math.Float64bits(v) != math.Float64bits(want[i][f]) {
					t.Fatalf("%s record %d frame %d: %v, Evaluate %v", name, i, f, v, want[i][f])
				}
			}
		}
	}
}
