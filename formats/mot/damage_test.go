package mot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// synthetic returns a shared synthetic file's bytes.
func synthetic(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(shared(t, "synthetic/"+name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Offsets in bayo2_le.mot (records at 0x2C, 12 bytes each; record 4 is a type 4
// float-key record whose data starts at 0xEC) and bayo1_le.mot (records at 0x10).
func TestDamagedFiles(t *testing.T) {
	b2 := func(t *testing.T) []byte { return synthetic(t, "bayo2_le.mot") }
	b1 := func(t *testing.T) []byte { return synthetic(t, "bayo1_le.mot") }
	le := binary.LittleEndian
	for _, c := range []struct {
		name   string
		file   func(*testing.T) []byte
		edit   func([]byte) []byte
		rule   string
		offset int64
		words  string
	}{
		{"empty", b2, func(b []byte) []byte { return nil }, formats.RuleTruncated, 0, "header"},
		{"magic", b2, func(b []byte) []byte { b[0] = 'M'; return b }, formats.RuleMagic, 0, "not a motion"},
		{"bayo2 header cut", b2, func(b []byte) []byte { return b[:0x20] }, formats.RuleTruncated, 0x20, "Bayonetta 2"},
		{"table past end", b2, func(b []byte) []byte { le.PutUint32(b[0x10:], 1<<30); return b }, formats.RuleBounds, 0x0C, "record table"},
		{"data offset past end", b2, func(b []byte) []byte { le.PutUint32(b[0x2C+12*4+8:], 1<<31); return b }, formats.RuleBounds, 0x2C + 12*4 + 8, "record 4 (bone 1, track 3, type 4)"},
		{"truncated data", b2, func(b []byte) []byte { return b[:0x1A0] }, formats.RuleBounds, 0x2C + 12*9 + 8, "record 9"},
		{"negative count", b2, func(b []byte) []byte { le.PutUint16(b[0x2C+12*4+4:], 0xFFFE); return b }, RuleKeyCount, 0x2C + 12*4 + 4, "count -2"},
		{"huge count", b2, func(b []byte) []byte { le.PutUint16(b[0x2C+12*4+4:], 0x7FFF); return b }, formats.RuleBounds, 0x2C + 12*4 + 8, "record 4"},
		{"frames out of order", b2, func(b []byte) []byte { le.PutUint16(b[0xEC+16:], 0); le.PutUint16(b[0xEC:], 5); return b }, RuleKeyOrder, 0xEC, "key 1 is at frame 0, before key 0's frame 5"},
		{"unknown type", b2, func(b []byte) []byte { b[0x2C+12*4+3] = 9; return b }, RuleRecordType, 0x2C + 12*4 + 3, "type 9"},
		{"bayo1 negative frames", b1, func(b []byte) []byte { le.PutUint16(b[6:], 0xFFF0); return b }, formats.RuleFrameCount, 6, "negative"},
		{"bayo1 table outside both ways", b1, func(b []byte) []byte { le.PutUint32(b[8:], 0x7FFFFFFF); return b }, RuleByteOrder, 8, "outside"},
		{"bayo1 negative count", b1, func(b []byte) []byte { le.PutUint16(b[0x10+12+4:], 0x8000); return b }, RuleKeyCount, 0x10 + 12 + 4, "record 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.edit(c.file(t)), formats.Name("x.mot"))
			var fe *formats.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FormatError", err)
			}
			if fe.Rule != c.rule || fe.Offset != c.offset || fe.File != "x.mot" {
				t.Fatalf("%v: rule %s offset %#x, want %s at %#x", err, fe.Rule, fe.Offset, c.rule, c.offset)
			}
			if !strings.Contains(err.Error(), c.words) || !strings.HasPrefix(err.Error(), "x.mot: ") {
				t.Fatalf("%q does not say %q", err, c.words)
			}
		})
	}
}

// A strict parse refuses what Write would not give back; a lenient one accepts it
// with a warning.
func TestStrictOnlyRules(t *testing.T) {
	b := synthetic(t, "bayo2_le.mot")
	b = append(b, 0, 0, 0, 0)
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Fatalf("trailing bytes: %v", err)
	}
	m, err := Parse(b, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	if w := m.Warnings(); len(w) != 1 || w[0].Rule != formats.RuleTrailingBytes {
		t.Fatalf("warnings %v", w)
	}
	b = synthetic(t, "bayo2_le.mot")
	b[0x18+12] = 'x' // after the name's NUL
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "zero-bytes") {
		t.Fatalf("name padding: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"bayo1_le.mot", "bayo1_be.mot", "bayo2_le.mot", "bayo2_be.mot"} {
		if p, ok := testfiles.Find("mot", "synthetic/"+name); ok {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("mot\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			ParseWithOrder(b, o, formats.Lenient()) // must not panic
		}
		if strict, err := Parse(b); err == nil {
			// Strictly valid files are exactly those the writer gives back.
			out, err := strict.Marshal()
			if err != nil || !bytes.Equal(out, b) {
				t.Fatalf("strictly valid file does not rewrite byte for byte (%v)", err)
			}
		}
		m, err := Parse(b, formats.Lenient())
		if err != nil {
			return
		}
		if m.Frames > 1<<16 {
			t.Fatalf("%d frames", m.Frames)
		}
		if m.Frames < 4096 {
			if _, err := m.Evaluate(); err != nil {
				t.Fatalf("parsed but does not evaluate: %v", err)
			}
		}
		out, err := m.Marshal()
		if err != nil {
			return // a header field Write refuses (a Bayonetta 2 frame count), fine
		}
		m2, err := Parse(out)
		if err != nil {
			t.Fatalf("rewritten file does not parse strictly: %v", err)
		}
		if len(m2.Records) != len(m.Records) {
			t.Fatalf("%d records, rewritten %d", len(m.Records), len(m2.Records))
		}
	})
}

// TestEvaluateBounded: a motion of many constant records declaring the most frames
// a header can hold is refused by Evaluate instead of asking for gigabytes, while
// each record still evaluates alone.
func TestEvaluateBounded(t *testing.T) {
	m := &Motion{Frames: 65535}
	for i := range 600 {
		m.Records = append(m.Records, Record{Bone: int16(i), Track: 0, Type: 0, Value: 1})
	}
	if _, err := m.Evaluate(); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("Evaluate of 600 × 65,535 values: %v", err)
	}
	c, err := m.Curve(599)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.At(65534); v != 1 {
		t.Fatalf("record 599 at the last frame: %v", v)
	}
}
