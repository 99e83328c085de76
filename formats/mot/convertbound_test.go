package mot

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// floatKeyMotion is a little-endian Bayonetta 2 motion of frames frames and n
// type 4 records (float Hermite keys, 16 bytes each), record i's keys[i] at
// block(i), an index into blocks laid out one after another after the table:
// records given the same block point at the same bytes.
func floatKeyMotion(frames, n int, blocks [][]float32Key, block func(i int) int) []byte {
	le := binary.LittleEndian
	b := make([]byte, Bayo2Header)
	copy(b, Magic)
	le.PutUint32(b[4:], Bayo2Tag)
	le.PutUint16(b[10:], uint16(frames))
	le.PutUint32(b[12:], Bayo2Header)
	le.PutUint32(b[16:], uint32(n))
	b[0x15] = 0x3c
	at := make([]int, len(blocks)+1)
	at[0] = Bayo2Header + RecordSize*(n+1)
	for k, keys := range blocks {
		at[k+1] = at[k] + 16*len(keys)
	}
	for i := range n {
		off := len(b)
		r := make([]byte, RecordSize)
		le.PutUint16(r, uint16(i))
		r[3] = 4
		le.PutUint16(r[4:], uint16(len(blocks[block(i)])))
		le.PutUint32(r[8:], uint32(at[block(i)]-off))
		b = append(b, r...)
	}
	term := make([]byte, RecordSize)
	le.PutUint16(term, TerminatorBone)
	b = append(b, term...)
	for _, keys := range blocks {
		for _, k := range keys {
			e := make([]byte, 16)
			le.PutUint16(e, k.frame)
			le.PutUint32(e[4:], math.Float32bits(k.p))
			le.PutUint32(e[8:], math.Float32bits(k.m0))
			le.PutUint32(e[12:], math.Float32bits(k.m1))
			b = append(b, e...)
		}
	}
	return b
}

type float32Key struct {
	frame     uint16
	p, m0, m1 float32
}

// twoKeys is a curve whose values at most frames are not float32 values, so
// that a Bayonetta 1 result in the readable types holds it as float32 values
// per frame (docs/formats/mot.md §10): 4 bytes a frame from 32 bytes of keys.
func twoKeys(seed int, frames int) []float32Key {
	return []float32Key{{0, float32(seed) * 0.1, 0.3, 0.7}, {uint16(frames - 1), 1.7 + float32(seed)*0.01, -0.9, 0.2}}
}

// TestConvertSharedData: records sharing one block of data are converted once
// and share the result in memory and in the file written; before, 4,000
// records naming one block were each converted and written, gigabytes from a
// file of a few hundred kilobytes (issue 42, item 7).
func TestConvertSharedData(t *testing.T) {
	const n, frames = 4000, 32767
	b := floatKeyMotion(frames, n, [][]float32Key{twoKeys(1, frames)}, func(int) int { return 0 })
	m, err := Parse(b, formats.Lenient(), formats.Name("shared.mot"))
	if err != nil {
		t.Fatal(err)
	}
	// What it allocates is the measure (wall time varies with the machine and
	// -race): before, 5.2 GB.
	var out []byte
	var re []Reexpressed
	a := testfiles.Allocated(func() {
		var c *Motion
		c, re, err = m.Convert(Bayo1, binary.BigEndian, nil, Readable)
		if err == nil {
			out, err = c.Marshal()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// One record's values per frame is 4 × 32767 bytes; the table is 12 per record.
	if limit := uint64(4*frames + RecordSize*(n+1) + Bayo1Header + 64); uint64(len(out)) > limit {
		t.Errorf("converting %d records sharing one block wrote %d bytes; want at most %d (the block once)", n, len(out), limit)
	}
	if a > 64<<20 {
		t.Errorf("converting a %d-byte file allocated %d bytes", len(b), a)
	}
	if len(re) != n || re[n-1].Bone != int16(n-1) || re[n-1].To != 1 {
		t.Errorf("%d records reported re-expressed, the last %+v; want all %d, bone %d to type 1", len(re), re[len(re)-1], n, n-1)
	}
	// The file read back: every record shares the one block and has its values.
	back, err := Parse(out, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Records) != n || &back.Records[0].Data[0] != &back.Records[n-1].Data[0] {
		t.Fatalf("read back: %d records, sharing %v", len(back.Records), len(back.Records) == n && &back.Records[0].Data[0] == &back.Records[n-1].Data[0])
	}
	for _, i := range []int{0, n - 1} {
		want, err := m.Curve(i)
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.Curve(i)
		if err != nil {
			t.Fatal(err)
		}
		w, g := make([]float64, frames), make([]float64, frames)
		want.Eval(w)
		got.Eval(g)
		for x := range w {
			if math.Abs(w[x]-g[x]) > re[i].Diff {
				t.Fatalf("record %d frame %d: %v, want %v (within %g)", i, x, g[x], w[x], re[i].Diff)
			}
		}
	}
}

// TestConvertBounded: records that do not share but each grow four thousandfold
// (two float keys over 32,767 frames become a float32 per frame) are refused
// once the data written passes 64 times the input, or 16 MiB, naming the
// record and the bound; before, a 93 KB file wrote 1.31 GB.
func TestConvertBounded(t *testing.T) {
	const n, frames = 2100, 32767
	blocks := make([][]float32Key, n)
	for i := range blocks {
		blocks[i] = twoKeys(i, frames)
	}
	b := floatKeyMotion(frames, n, blocks, func(i int) int { return i })
	m, err := Parse(b, formats.Name("grows.mot"))
	if err != nil {
		t.Fatal(err)
	}
	a := testfiles.Allocated(func() { _, _, err = m.Convert(Bayo1, binary.BigEndian, nil, Readable) })
	if err == nil || !strings.Contains(err.Error(), "pass the 16.8 MB allowed") || !strings.Contains(err.Error(), "docs/formats/mot.md §15") || !strings.Contains(err.Error(), "record ") {
		t.Fatalf("converting %d growing records of a %d-byte file: %v; want a refusal naming the record and the bound", n, len(b), err)
	}
	if a > 256<<20 {
		t.Errorf("refusing allocated %d bytes", a)
	}
	// The same records, fewer: within the bound, converted.
	m.Records = m.Records[:100]
	c, _, err := m.Convert(Bayo1, binary.BigEndian, nil, Readable)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Marshal(); err != nil || len(out) < 100*4*(frames-1) {
		t.Errorf("100 records: %d bytes, %v", len(out), err)
	}
}
