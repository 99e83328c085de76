package bpsm

import (
	"fmt"
	"strings"
)

// Rules a BPSM file can break (FACTS §2.5). FormatError.Rule is one of these. The
// last three are per-vertex rules, checked only by File.CheckVertices (and, for
// RuleVertexFloat and RuleWeights, by the writer).
const (
	RuleTruncated     = "truncated"      // shorter than the 72-byte header
	RuleMagic         = "magic"          // does not start with "BPSM"
	RuleVersion       = "version"        // version other than 1
	RuleSpecies       = "species"        // species id not registered
	RuleLOD           = "lod"            // lod other than 0 (full) or 1 (minimal)
	RuleVertexCount   = "vertex-count"   // no vertices
	RuleIndexCount    = "index-count"    // index_count not a multiple of 3
	RuleIndex         = "index"          // an index ≥ vertex_count
	RuleClipCount     = "clip-count"     // no clips
	RuleFrameCount    = "frame-count"    // a clip with no frames
	RuleFrameOffset   = "frame-offset"   // clip frames not contiguous
	RuleFrameTotal    = "frame-total"    // Σ frame_count ≠ frame_total
	RuleBounds        = "bounds"         // a section or name outside the file
	RuleSectionOrder  = "section-order"  // sections not in the order header, clips, strings, indices, vertices
	RuleOverlap       = "overlap"        // a section starts before the previous one ends
	RuleAlignment     = "alignment"      // a section not aligned (tables, indices, vertices: 4 bytes)
	RuleName          = "name"           // name not NUL-terminated, contains NUL, or not UTF-8
	RuleZeroBytes     = "zero-bytes"     // a pad, reserved or gap byte is not zero
	RuleTrailingBytes = "trailing-bytes" // bytes after the vertex data
	RuleVertexFloat   = "vertex-float"   // a vertex float is NaN or infinite
	RuleWeights       = "weights"        // a bone weight outside [0,1], or weights not summing to 1
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError struct {
	File   string // the file's path, or the name given to Parse
	Rule   string // one of the Rule constants
	Offset int64  // byte offset of the offending field or region
	// Index is the clip the problem is in (for vertex rules too), the position in
	// the index data for RuleIndex, or -1.
	Index  int
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
		name = "bpsm"
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
