package binfile

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestSectionBounds(t *testing.T) {
	c := NewChecker(make([]byte, 100), Options{Name: "f.bin"})
	if s := c.Section("a", 8, 10, 9, 10); !s.OK || s.End != 100 {
		t.Fatalf("a 90-byte section at 10 of 100: %+v", s)
	}
	if s := c.Section("b", 8, 10, 91); s.OK {
		t.Fatal("a section past the end was accepted")
	}
	if s := c.Section("c", 16, 0, math.MaxUint32, math.MaxUint32, 64); s.OK {
		t.Fatal("a 2^70-byte section was accepted")
	}
	if s := c.Section("d", 24, math.MaxUint64, 1); s.OK {
		t.Fatal("an offset past the end was accepted")
	}
	err := c.Err("test")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 3 || !ve.HasRule(RuleBounds) {
		t.Fatalf("err %v", err)
	}
	// Sorted by offset, each naming the file.
	for i, want := range []int64{8, 16, 24} {
		if ve.Problems[i].Offset != want || ve.Problems[i].File != "f.bin" {
			t.Fatalf("problem %d: %+v", i, ve.Problems[i])
		}
	}
	if !strings.HasPrefix(err.Error(), "f.bin: 3 problems:") {
		t.Fatalf("message %q", err.Error())
	}
}

func TestNameAndZeros(t *testing.T) {
	b := []byte("\x04\x00\x00\x00\x03\x00\x00\x00" + "xxxxabc\x00" + "\x00\x01")
	c := NewChecker(b, Options{})
	strs := Span{Name: "strings", Start: 8, End: 16, OK: true}
	if got := c.Name("clip", 0, 0, strs); got != "abc" || len(c.Problems) != 0 {
		t.Fatalf("name %q, problems %v", got, c.Problems)
	}
	c.Zeros(16, 18, -1, "pad")
	if len(c.Problems) != 1 || c.Problems[0].Offset != 17 || c.Problems[0].Rule != RuleZeroBytes {
		t.Fatalf("problems %+v", c.Problems)
	}
	lenient := NewChecker(b, Options{Lenient: true})
	lenient.Zeros(16, 18, -1, "pad")
	if lenient.Err("x") != nil {
		t.Fatal("a lenient checker checked zero bytes")
	}
}
