package bpat

import (
	"fmt"
	"strings"
)

// Rules a BPAT file can break (FACTS §1.4). FormatError.Rule is one of these.
const (
	RuleTruncated     = "truncated"      // shorter than the 64-byte header
	RuleMagic         = "magic"          // does not start with "BPAT"
	RuleVersion       = "version"        // version other than 1 or 2
	RuleSpecies       = "species"        // species id not registered
	RuleBoneCount     = "bone-count"     // outside [1, 64]
	RuleClipCount     = "clip-count"     // no clips
	RuleFrameCount    = "frame-count"    // a clip with no frames
	RuleFrameOffset   = "frame-offset"   // clip frames not contiguous
	RuleFrameTotal    = "frame-total"    // Σ frame_count ≠ frame_total
	RuleBounds        = "bounds"         // a section or name outside the file
	RuleSectionOrder  = "section-order"  // sections not in the order header, clips, sockets, strings, palette
	RuleOverlap       = "overlap"        // a section starts before the previous one ends
	RuleAlignment     = "alignment"      // a section not aligned (palette: 16 bytes)
	RuleSocketTable   = "socket-table"   // socket_table_offset = 0 iff socket_count = 0 broken
	RuleName          = "name"           // name not NUL-terminated, contains NUL, or not UTF-8
	RuleAnchorBone    = "anchor-bone"    // socket anchor ≥ bone_count
	RuleZeroBytes     = "zero-bytes"     // a pad, reserved or gap byte is not zero
	RuleMarker        = "marker"         // marker neither -1 nor in [0,1]
	RuleFPS           = "fps"            // fps not finite or ≤ 0
	RuleLoops         = "loops"          // loops flag other than 0 or 1
	RuleTrailingBytes = "trailing-bytes" // bytes after the last section
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError struct {
	File   string // the file's path, or the name given to Parse
	Rule   string // one of the Rule constants
	Offset int64  // byte offset of the offending field or region
	Index  int    // clip or socket index the problem is in, or -1
	Detail string // what is wrong, in words
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "offset %d (0x%x): %s: %s", e.Offset, e.Offset, e.Rule, e.Detail)
	return b.String()
}

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError struct {
	File     string
	Problems []*FormatError
}

func (e *ValidationError) Error() string {
	name := e.File
	if name == "" {
		name = "bpat"
	}
	if len(e.Problems) == 1 {
		return e.Problems[0].Error()
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
