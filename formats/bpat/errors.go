package bpat

import "github.com/bonebake/bonebake/formats"

// Rules only a BPAT file can break (docs/formats/bpat.md §4). The rules every
// format shares (formats.RuleBounds, formats.RuleLayout, formats.RuleFloat, …) apply
// too; FormatError.Rule is one of either.
const (
	RuleBoneCount   = "bone-count"   // outside [1, 64]
	RuleSocketTable = "socket-table" // socket_table_offset = 0 iff socket_count = 0 broken
	RuleAnchorBone  = "anchor-bone"  // socket anchor ≥ bone_count
	RuleMarker      = "marker"       // marker neither -1 nor in [0,1]
	RuleFPS         = "fps"          // fps not finite or ≤ 0
	RuleLoops       = "loops"        // loops flag other than 0 or 1
)

// RuleVersion is formats.RuleVersion under its former name.
//
// Deprecated: use formats.RuleVersion.
const RuleVersion = formats.RuleVersion

// FormatError is one broken rule: which, where, and in which file.
type FormatError = formats.FormatError

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError = formats.ValidationError

// Option adjusts how a file is validated: formats.Lenient, formats.Name,
// formats.KnownSpecies, formats.SkipFloatScan.
type Option = formats.Option
