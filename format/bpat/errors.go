package bpat

import "bonebake/internal/binfile"

// Rules a BPAT file can break (FACTS §1.4). FormatError.Rule is one of these.
const (
	RuleTruncated     = "truncated"           // shorter than the 64-byte header
	RuleMagic         = "magic"               // does not start with "BPAT"
	RuleVersion       = "version"             // version other than 1 or 2
	RuleSpecies       = "species"             // species id not registered
	RuleBoneCount     = "bone-count"          // outside [1, 64]
	RuleClipCount     = "clip-count"          // no clips
	RuleFrameCount    = "frame-count"         // a clip with no frames
	RuleFrameOffset   = "frame-offset"        // clip frames not contiguous
	RuleFrameTotal    = "frame-total"         // Σ frame_count ≠ frame_total
	RuleBounds        = binfile.RuleBounds    // a section or name outside the file
	RuleSectionOrder  = "section-order"       // sections not in the order header, clips, sockets, strings, palette
	RuleOverlap       = "overlap"             // a section starts before the previous one ends
	RuleAlignment     = "alignment"           // a section not aligned (palette: 16 bytes)
	RuleSocketTable   = "socket-table"        // socket_table_offset = 0 iff socket_count = 0 broken
	RuleName          = binfile.RuleName      // name not NUL-terminated, contains NUL, or not UTF-8
	RuleAnchorBone    = "anchor-bone"         // socket anchor ≥ bone_count
	RuleZeroBytes     = binfile.RuleZeroBytes // a pad, reserved or gap byte is not zero
	RuleMarker        = "marker"              // marker neither -1 nor in [0,1]
	RuleFPS           = "fps"                 // fps not finite or ≤ 0
	RuleLoops         = "loops"               // loops flag other than 0 or 1
	RuleTrailingBytes = "trailing-bytes"      // bytes after the last section
)

// FormatError is one broken rule: which, where, and in which file.
type FormatError = binfile.FormatError

// ValidationError lists every rule a file breaks. errors.As finds each FormatError.
type ValidationError = binfile.ValidationError
