package bpsm

import "github.com/bonebake/bonebake/formats"

// Rules only a BPSM file can break (docs/formats/bpsm.md). The rules every format
// shares (formats.RuleBounds, formats.RuleLayout, …) apply too; FormatError.Rule is
// one of either. RuleWeights is checked only by File.CheckVertices (and the
// writer), RuleVertexFloat by Parse's float scan, CheckVertices and the writer.
const (
	RuleLOD         = "lod"          // lod other than 0 (full) or 1 (minimal)
	RuleVertexCount = "vertex-count" // no vertices
	RuleIndexCount  = "index-count"  // index_count not a multiple of 3
	RuleIndex       = "index"        // an index ≥ vertex_count
	RuleVertexFloat = "vertex-float" // a vertex float is NaN or infinite
	RuleWeights     = "weights"      // a bone weight outside [0,1], or weights not summing to 1
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError = formats.FormatError

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError = formats.ValidationError

// Option adjusts how a file is validated: formats.Lenient, formats.Name,
// formats.KnownSpecies, formats.SkipFloatScan.
type Option = formats.Option
