package bake

// Line is one line of what a bake tells its user, as the adapters report their
// bakes (gltfbake.Bake, species.WriteAll): in the library's words, naming
// settings as its errors do (Settings.SpeciesID), for a caller to word as it
// names them and to send where its Kind says.
type Line struct {
	Kind LineKind
	Text string
	Err  error // a Failed line's error
}

// LineKind says what a report's line is, and so where a caller sends it: what
// was written is a bake's output, the rest its log.
type LineKind uint8

const (
	// Wrote says what a file written holds: "wrote fox.bpat: 244 KB, …".
	Wrote LineKind = iota
	// Total says what a bake of several things wrote in all.
	Total
	// Found is what the bake found on the way, starting with its kind:
	// "note: …", "hint: …", a measured gait ("gait: …"), "warning: …".
	Found
	// Doing says what the bake is about to do, naming its file: "writing 24.3
	// MB to fox.bpat".
	Doing
	// Failed says that a part of a bake of several failed while the others
	// went on: Text names it (a model's path), Err says why.
	Failed
)
