package formats_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/formats/mot"
)

// TestJSONErrorsSayWhere: a gait sidecar or a motion dump that is not JSON, is
// cut short, or holds a value of the wrong type is refused naming the line and
// byte offset where the decoder stopped and the rule, as every binary format's
// errors do; encoding/json's own messages give neither ("unexpected end of JSON
// input"). The offsets are counted by hand in each document.
func TestJSONErrorsSayWhere(t *testing.T) {
	cases := []struct {
		name, doc string
		parse     func([]byte) error
		off       int64
		line      int
	}{
		// cut after the second line's '[': 19 bytes of line 1 with its newline, 12 of
		// line 2: the end, byte 31
		{"dump cut short", "{\"frame_count\": 2,\n\"records\": [", func(b []byte) error { _, err := mot.ParseDump(b); return err }, 31, 2},
		// a .mot file given where the dump belongs: 'm' at byte 0 is not JSON
		{"dump of a motion file", "mot\x00\x00\x00", func(b []byte) error { _, err := mot.ParseDump(b); return err }, 0, 1},
		// a string among the values, "x" at bytes 43-45 (19 of line 1, then 24 of
		// line 2 before it): the end of the value, byte 46
		{"dump value of a wrong type", "{\"frame_count\": 1,\n\"records\": [{\"values\": [\"x\"]}]}", func(b []byte) error { _, err := mot.ParseDump(b); return err }, 46, 2},
		// a newline inside a string, on line 3: "{\n" bytes 0-1, the format line 2-19
		// with its newline, then '"' at 20, 'b' at 21, the newline at 22
		{"sidecar with a broken string", "{\n\"format\": \"gait\",\n\"b\n", func(b []byte) error { _, err := gait.Parse(b); return err }, 22, 3},
	}
	for _, c := range cases {
		err := c.parse([]byte(c.doc))
		var fe *formats.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v: not a FormatError", c.name, err)
			continue
		}
		if fe.Rule != formats.RuleSyntax || fe.Offset != c.off || fe.Line != c.line {
			t.Errorf("%s: rule %q, offset %d, line %d; want %q, %d, %d (%v)", c.name, fe.Rule, fe.Offset, fe.Line, formats.RuleSyntax, c.off, c.line, err)
		}
		if want := fmt.Sprintf("line %d (offset %d): syntax: ", c.line, c.off); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q does not start %q", c.name, err, want)
		}
	}
}
