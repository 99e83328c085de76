package bpsm

import "bonebake/internal/binfile"

// Rules a BPSM file can break (FACTS §2.5). FormatError.Rule is one of these. The
// last three are per-vertex rules, checked only by File.CheckVertices (and, for
// RuleVertexFloat and RuleWeights, by the writer).
const (
	RuleTruncated     = "truncated"           // shorter than the 72-byte header
	RuleMagic         = "magic"               // does not start with "BPSM"
	RuleVersion       = "version"             // version other than 1
	RuleSpecies       = "species"             // species id not registered
	RuleLOD           = "lod"                 // lod other than 0 (full) or 1 (minimal)
	RuleVertexCount   = "vertex-count"        // no vertices
	RuleIndexCount    = "index-count"         // index_count not a multiple of 3
	RuleIndex         = "index"               // an index ≥ vertex_count
	RuleClipCount     = "clip-count"          // no clips
	RuleFrameCount    = "frame-count"         // a clip with no frames
	RuleFrameOffset   = "frame-offset"        // clip frames not contiguous
	RuleFrameTotal    = "frame-total"         // Σ frame_count ≠ frame_total
	RuleBounds        = binfile.RuleBounds    // a section or name outside the file
	RuleSectionOrder  = "section-order"       // sections not in the order header, clips, strings, indices, vertices
	RuleOverlap       = "overlap"             // a section starts before the previous one ends
	RuleAlignment     = "alignment"           // a section not aligned (tables, indices, vertices: 4 bytes)
	RuleName          = binfile.RuleName      // name not NUL-terminated, contains NUL, or not UTF-8
	RuleZeroBytes     = binfile.RuleZeroBytes // a pad, reserved or gap byte is not zero
	RuleTrailingBytes = "trailing-bytes"      // bytes after the vertex data
	RuleVertexFloat   = "vertex-float"        // a vertex float is NaN or infinite
	RuleWeights       = "weights"             // a bone weight outside [0,1], or weights not summing to 1
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError = binfile.FormatError

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError = binfile.ValidationError
