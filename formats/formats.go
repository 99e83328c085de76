// Package formats holds what every bonebake file format shares in its public
// surface: how a reader is told to validate (Options), the errors a reader returns
// (FormatError, one broken rule; ValidationError, all of them), the names of the
// rules every format has, and Sniff, which tells the formats apart by their first
// bytes.
//
// Each format lives in a package of its own (formats/bpat, formats/bpsm, …); the
// mechanics they share (checked spans, string tables, mapping, float views) are in
// formats/internal/binfmt.
package formats

// Options are what a reader is told about how to validate a file.
type Options struct {
	// Name is the file name errors report (Open sets it to the path).
	Name string
	// Lenient accepts what the game's own reader accepts. What strict mode checks
	// beyond that is reported as a warning instead of an error.
	Lenient bool
	// Species, when not nil, is the set of known species ids: a file declaring
	// another is refused (strict) or warned about (lenient). When nil the species id
	// is not checked at all.
	Species []uint32
	// SkipFloatScan skips the scan that proves every float of a file's bulk data
	// (palettes, socket data, vertices) finite. The scan reads every byte, so it pages
	// in a whole mapped file; skip it only for large files you trust.
	SkipFloatScan bool
}

// Option sets one of the Options.
type Option func(*Options)

// Apply returns the options that opts set.
func Apply(opts []Option) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Lenient accepts what the game's own reader accepts; each format's documentation
// says which checks that leaves out. The checks it leaves out still run, and what
// they find is listed as warnings on the parsed file.
func Lenient() Option { return func(o *Options) { o.Lenient = true } }

// Name sets the file name that errors report.
func Name(name string) Option { return func(o *Options) { o.Name = name } }

// KnownSpecies gives the species ids a file may declare; several uses add up.
// Without it a reader does not check the species id.
func KnownSpecies(ids ...uint32) Option {
	return func(o *Options) { o.Species = append(append([]uint32{}, o.Species...), ids...) }
}

// SkipFloatScan leaves out the finiteness scan of the bulk data, so that opening a
// huge trusted file maps it without reading it. A NaN or infinite float then goes
// unnoticed: use it only for files this program wrote or has validated before.
func SkipFloatScan() Option { return func(o *Options) { o.SkipFloatScan = true } }

// Section is one region of a file: a table, a data block, or padding.
type Section struct {
	Name   string
	Offset uint64
	Size   uint64
}
