// Package gait reads and writes gait sidecars: the small JSON file `bonebake bake`
// writes next to a BPAT file (NAME.bpat → NAME.gait.json) with each clip's cycle
// and measured ground speed, which the BPAT format has no room for
// (docs/formats/gait.md). A runtime reads it with OpenFor and asks Gait per clip.
package gait

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Format is the value of a sidecar's "format" key, and Version its version.
const (
	Format  = "bonebake-gait"
	Version = 1
)

// Where a clip's ground speed came from (the "ground_speed_source" key).
const (
	SourceMeasured = "measured" // measured at bake time from the clip's motion
	SourceManifest = "manifest" // given by the bake's manifest
)

// MaxSize is the largest sidecar Read accepts (a sidecar is a few hundred bytes
// per clip).
const MaxSize = 16 << 20

// File is one sidecar.
type File struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// BPAT is the base name of the BPAT file the sidecar describes.
	BPAT string `json:"bpat"`
	// Units of lengths: always "m", the model's own units after the bake's scale
	// (a model in centimetres baked without --scale 0.01 measures in cm).
	Units string `json:"units"`
	// Feet are the bones measured as feet, FeetFrom how they were found ("given",
	// "name", "hierarchy"); RootBone is the bone whose travel counts as root motion.
	Feet     []string `json:"feet,omitempty"`
	FeetFrom string   `json:"feet_from,omitempty"`
	RootBone string   `json:"root_bone,omitempty"`
	Clips    []Clip   `json:"clips"`
}

// Clip is one clip's gait, in the BPAT file's clip order: the sidecar's JSON
// record, which names the clip but holds none of the BPAT's table (bpat.Clip).
type Clip struct {
	Name string `json:"name"`
	// Cycle is how long one pass of the clip lasts when it plays at GroundSpeed,
	// in seconds: the clip's own duration unless the manifest (or an exported
	// creature's extras) says otherwise.
	Cycle float64 `json:"cycle"`
	// GroundSpeed is the speed (m/s) at which the clip's feet do not slide when it
	// plays one pass per Cycle; absent (0) for a clip that plays in place.
	GroundSpeed float64 `json:"ground_speed,omitempty"`
	// GroundSpeedSource is SourceMeasured or SourceManifest when GroundSpeed is
	// given, absent otherwise.
	GroundSpeedSource string `json:"ground_speed_source,omitempty"`
	// Measurement: Status ("measured", "no_travel", "untrusted"), Method
	// ("root_motion", "feet"), Confidence in [0, 1], Stride (m per pass) and
	// Reason (why there is no speed, or a remark).
	Status     string  `json:"status"`
	Method     string  `json:"method,omitempty"`
	Confidence float64 `json:"confidence"`
	Stride     float64 `json:"stride,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	// InPlace says the root's horizontal travel was removed from the baked clip
	// (bake --in-place); the speed is the travel's.
	InPlace bool `json:"in_place,omitempty"`
	// Planted says the clip's feet were locked to the ground at bake time
	// (bake --plant-feet): the baked clip differs from the source animation,
	// and the measurement is the planted clip's.
	Planted bool `json:"planted,omitempty"`
	// Direction is the unit vector [x, 0, z], in model space (y up), along
	// which the measured clip travels: the root's travel, or the way its
	// planted feet move back reversed. Absent when the clip was not measured
	// to travel (no_travel, untrusted) or in a sidecar written before it
	// existed: a reader takes +z, the runtime's heading 0 (docs/runtime.md §10).
	Direction [3]float64 `json:"direction,omitzero"`
}

// Dir returns the clip's direction of travel in model space as x, z, and
// whether the sidecar gives one.
func (c Clip) Dir() (x, z float64, ok bool) {
	return c.Direction[0], c.Direction[2], c.Direction != [3]float64{}
}

// MethodRootMotion is Method for a clip measured from its root's travel
// (docs/formats/gait.md §2).
const MethodRootMotion = "root_motion"

// TravelsInFrames says the baked clip moves the model in its own frames: its
// ground speed is its root's travel, which the bake kept (not InPlace). A
// runtime that also moves the unit at GroundSpeed moves it twice (§4).
func (c Clip) TravelsInFrames() bool {
	return c.GroundSpeed > 0 && c.Method == MethodRootMotion && !c.InPlace
}

// Gait returns a clip's cycle (s) and ground speed (m/s, 0 for a clip played in
// place) as a runtime uses them: a locomotion clip advances its phase by
// dt/cycle · speed/ground speed.
func (c Clip) Gait() (cycle, groundSpeed float64) { return c.Cycle, c.GroundSpeed }

// Clip returns the clip called name.
func (f *File) Clip(name string) (Clip, bool) {
	for _, c := range f.Clips {
		if c.Name == name {
			return c, true
		}
	}
	return Clip{}, false
}

// SidecarPath is the sidecar of a BPAT file: its path with the extension
// replaced by .gait.json (fox.bpat → fox.gait.json).
func SidecarPath(bpatPath string) string {
	return strings.TrimSuffix(bpatPath, filepath.Ext(bpatPath)) + ".gait.json"
}

// Parse reads a sidecar and checks it (docs/formats/gait.md §1): the format and
// version, unique clip names, a positive finite cycle for every clip, and a
// ground speed that is positive and finite with its source when given. Unknown
// keys are ignored (a later version may add some).
func Parse(b []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, formats.JSONError(b, err, "gait")
	}
	if f.Format != Format {
		return nil, fmt.Errorf("gait: format %q, want %q", f.Format, Format)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("gait: version %d: only version %d exists", f.Version, Version)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// check applies the rules of docs/formats/gait.md §1 to the clips, for Parse and
// for Marshal (a sidecar that breaks them is never written).
func (f *File) check() error {
	seen := map[string]bool{}
	finite := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	for i, c := range f.Clips {
		switch {
		case seen[c.Name]:
			return fmt.Errorf("gait: clip %d %q: a second clip of that name (§1: names are unique)", i, c.Name)
		case !(c.Cycle > 0) || !finite(c.Cycle):
			return fmt.Errorf("gait: clip %q: cycle %v must be a positive number of seconds (§1)", c.Name, c.Cycle)
		case !(c.GroundSpeed >= 0) || !finite(c.GroundSpeed):
			return fmt.Errorf("gait: clip %q: ground_speed %v must be a positive number of m/s, or absent (§1)", c.Name, c.GroundSpeed)
		case c.GroundSpeed > 0 && c.GroundSpeedSource != SourceMeasured && c.GroundSpeedSource != SourceManifest:
			return fmt.Errorf("gait: clip %q: ground_speed_source %q: want %q or %q (§1)", c.Name, c.GroundSpeedSource, SourceMeasured, SourceManifest)
		case !finite(c.Stride) || !finite(c.Confidence):
			return fmt.Errorf("gait: clip %q: stride %v and confidence %v must be finite numbers (§1)", c.Name, c.Stride, c.Confidence)
		case c.Direction != [3]float64{} && !unitHorizontal(c.Direction):
			return fmt.Errorf("gait: clip %q: direction %v must be a horizontal unit vector [x, 0, z] (§1)", c.Name, c.Direction)
		}
		seen[c.Name] = true
	}
	return nil
}

// Axis returns the horizontal axis nearest the direction (x, z) in model
// space: (±1, 0) or (0, ±1), and (0, 1), +z, for none. A model faces the axis
// nearest the sum of its clips' directions: bake's hint and the viewer's
// parade read it so (docs/formats/gait.md §8).
func Axis(x, z float64) (ax, az float64) {
	switch {
	case math.Abs(x) > math.Abs(z):
		return math.Copysign(1, x), 0
	case z < 0:
		return 0, -1
	}
	return 0, 1
}

// AxisName names the axis nearest (x, z) (Axis): "+x", "-x", "+z" or "-z",
// as --face takes it.
func AxisName(x, z float64) string {
	ax, az := Axis(x, z)
	return map[[2]float64]string{{1, 0}: "+x", {-1, 0}: "-x", {0, 1}: "+z", {0, -1}: "-z"}[[2]float64{ax, az}]
}

// unitHorizontal says d is [x, 0, z] with x² + z² within 0.001 of 1: the
// writer rounds each component to four decimals.
func unitHorizontal(d [3]float64) bool {
	if d[1] != 0 {
		return false
	}
	return math.Abs(math.Hypot(d[0], d[2])-1) <= 1e-3
}

// Open reads and checks the sidecar at path.
func Open(path string) (*File, error) {
	fh, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: more than %d bytes: not a gait sidecar", path, MaxSize)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// OpenFor reads the sidecar of a BPAT file (SidecarPath), or returns nil, nil when
// it has none: a file without one plays by the runtime's own table.
func OpenFor(bpatPath string) (*File, error) {
	f, err := Open(SidecarPath(bpatPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// Marshal returns the sidecar's bytes: indented JSON with a final newline. A
// sidecar that breaks a rule of docs/formats/gait.md §1 (a cycle that is not a
// positive finite number, say) is refused, saying which.
func (f *File) Marshal() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	g := *f
	g.Format, g.Version = Format, Version
	if g.Units == "" {
		g.Units = "m"
	}
	if g.Clips == nil {
		g.Clips = []Clip{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes the sidecar at path atomically (the old file stays on an
// error, which names path).
func WriteFile(path string, f *File) error {
	return WriteFileWith(atomicfile.Write, path, f)
}

// WriteFileWith is WriteFile writing path with write: an atomicfile.Set's
// Write, for the sidecar of a BPAT file written in the same set.
func WriteFileWith(write atomicfile.WriteFunc, path string, f *File) error {
	b, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
