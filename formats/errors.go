package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Rules every format has. Each format package adds its own; FormatError.Rule is
// one of them.
const (
	RuleTruncated     = "truncated"      // shorter than the fixed header
	RuleMagic         = "magic"          // does not start with the format's magic
	RuleVersion       = "version"        // a version this reader does not know
	RuleSpecies       = "species"        // species id not among the known ones
	RuleClipCount     = "clip-count"     // no clips
	RuleFrameCount    = "frame-count"    // a clip with no frames
	RuleFrameOffset   = "frame-offset"   // clip frames not contiguous
	RuleFrameTotal    = "frame-total"    // Σ frame_count ≠ frame_total
	RuleBounds        = "bounds"         // a section or name outside the file
	RuleSectionOrder  = "section-order"  // sections not in the format's order
	RuleOverlap       = "overlap"        // a section starts before the previous one ends
	RuleAlignment     = "alignment"      // a section not aligned as the format demands
	RuleLayout        = "layout"         // a section not where the canonical layout puts it
	RuleName          = "name"           // name not NUL-terminated, contains NUL, or not UTF-8
	RuleZeroBytes     = "zero-bytes"     // a pad, reserved or gap byte is not zero
	RuleFloat         = "float"          // a float of the bulk data is NaN or infinite
	RuleTrailingBytes = "trailing-bytes" // bytes after the last section
	RuleSyntax        = "syntax"         // a text file (JSON) that does not parse, or a value of the wrong type
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError struct {
	File   string // the file's path, or the name given to Parse
	Rule   string // one of the Rule constants
	Offset int64  // byte offset of the offending field or region
	Line   int    // for a text format, the 1-based line the offset is on; 0 for a binary one
	Index  int    // the clip, socket or other entry the problem is in, or -1
	Detail string // what is wrong, in words
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d (offset %d): %s: %s", e.Line, e.Offset, e.Rule, e.Detail)
	} else {
		fmt.Fprintf(&b, "offset %d (0x%x): %s: %s", e.Offset, e.Offset, e.Rule, e.Detail)
	}
	return b.String()
}

// JSONError returns err, from decoding the JSON document data, as a FormatError
// with its offset and line (rule syntax), its detail prefixed with what the
// document was to be: the offset of a byte that is not JSON, the end of a
// document cut short, the end of a value of the wrong type. An error of another
// kind comes back as it is. encoding/json's own messages give neither line nor
// offset.
func JSONError(data []byte, err error, what string) error {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included, except
		// at the end of the input
		off = se.Offset
		if off > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
			off--
		}
	case errors.As(err, &te):
		off = te.Offset
	default:
		return err
	}
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return &FormatError{Rule: RuleSyntax, Offset: off, Line: line, Index: -1, Detail: what + ": " + err.Error()}
}

// ValidationError lists every rule a file breaks, in file order. errors.As finds
// each FormatError.
type ValidationError struct {
	Format   string // "bpat", "bpsm": names the file when File is empty
	File     string
	Problems []*FormatError
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].Error()
	}
	name := e.File
	if name == "" {
		name = e.Format
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", name, len(e.Problems))
	for _, p := range e.Problems {
		q := *p
		q.File = ""
		b.WriteString("\n  ")
		b.WriteString(q.Error())
	}
	return b.String()
}

// Unwrap returns the problems so that errors.As and errors.Is see each one.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// HasRule reports whether the error breaks the given rule.
func (e *ValidationError) HasRule(rule string) bool {
	for _, p := range e.Problems {
		if p.Rule == rule {
			return true
		}
	}
	return false
}
