package bpat

import "bonebake/format"

// Rules only a BPAT file can break (docs/formats/bpat.md §4). The rules every
// format shares (format.RuleBounds, format.RuleLayout, format.RuleFloat, …) apply
// too; FormatError.Rule is one of either.
const (
	RuleBoneCount   = "bone-count"   // outside [1, 64]
	RuleSocketTable = "socket-table" // socket_table_offset = 0 iff socket_count = 0 broken
	RuleAnchorBone  = "anchor-bone"  // socket anchor ≥ bone_count
	RuleMarker      = "marker"       // marker neither -1 nor in [0,1]
	RuleFPS         = "fps"          // fps not finite or ≤ 0
	RuleLoops       = "loops"        // loops flag other than 0 or 1
)

// RuleVersion is format.RuleVersion under its former name.
//
// Deprecated: use format.RuleVersion.
const RuleVersion = format.RuleVersion

// FormatError is one broken rule: which, where, and in which file.
type FormatError = format.FormatError

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError = format.ValidationError

// Option adjusts how a file is validated: format.Lenient, format.Name,
// format.KnownSpecies, format.SkipFloatScan.
type Option = format.Option
