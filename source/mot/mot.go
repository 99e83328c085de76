// Package mot is the motion-file source: PlatinumGames motions (read by
// formats/mot, which stays the format alone) bound to a skeleton's bones and
// turned into a bake.Job, and the result written back as glTF animations. The
// section numbers in this package are docs/formats/mot.md's.
package mot

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/mot"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/internal/yamlread"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// FPS is the rate PlatinumGames motions play at (§11).
const FPS = 60

// Settings is what a caller says about baking motion files onto a skeleton.
type Settings struct {
	// BoneMap gives skeleton bone names their motion bone ids (§13); nil reads the
	// ids from the names.
	BoneMap map[string]int
	// RotationOrder names the Euler order, X applied first for "xyz" (§12);
	// empty means "xyz".
	RotationOrder string
	// FPS is the bake rate; 0 means 60, the motions' own rate.
	FPS       float64
	SpeciesID *uint32
	// FreeSpeciesID, when set, is the id the bake takes when SpeciesID is not
	// set, instead of roster.FirstFreeID(): one free in the output's folder
	// (gltfbake.FreeSpeciesIn).
	FreeSpeciesID *uint32
	Skin          int
	// NoLimits lifts the limits on the motions' evaluated values and on the
	// bake's size, and bakes a motion whose bones the skeleton mostly lacks
	// (MinFit): the command line's --force.
	NoLimits bool
}

// Check says whether the settings fit, naming the first that does not (a
// *bake.SettingError), as gltfbake.Settings.Check does a model's: given names
// the settings given (nil: those not zero, as Job checks them).
func (s Settings) Check(given func(setting string) bool) error {
	return bake.CheckSettings(given,
		bake.Rule{Setting: "FPS", Zero: s.FPS == 0, Check: func() error { return bake.CheckFPS(s.FPS) }},
		bake.Rule{Setting: "SpeciesID", Zero: s.SpeciesID == nil, Check: func() error {
			if s.SpeciesID == nil {
				return nil
			}
			return roster.CheckID(*s.SpeciesID)
		}},
	)
}

// MinFit is the share of a motion's bones a skeleton must carry for the motion
// to bake onto it (§13): a motion of another skeleton finds few of its bones,
// and those it finds by chance (the numbers ending unrelated joint names) take
// other bones' angles. Half leaves room for a model exported without some of
// its character's bones (a face, an accessory).
const MinFit = 0.5

// Fit is how many of a motion's bones a skeleton carries.
type Fit struct {
	Motion string // the clip's name
	// Bones are the motion's bones: the ids its records give a bone transform
	// (tracks 0–5, 7–9), cameras left out. Matched counts those a skeleton bone
	// has; Missing lists the others, ascending.
	Bones, Matched int
	Missing        []int16
	// ByMap says the ids came from a bone map, not from the joints' names.
	ByMap bool
}

// String says the fit in a line: "pl0010_0000: 91 of 93 bones found in the
// skeleton (ids from the numbers ending joint names)".
func (f Fit) String() string {
	how := "ids from the numbers ending joint names"
	if f.ByMap {
		how = "ids from the bone map"
	}
	return fmt.Sprintf("%s: %d of %d bones found in the skeleton (%s)", f.Motion, f.Matched, f.Bones, how)
}

// RuleBoneFit is the rule a FitError breaks.
const RuleBoneFit = "bone-fit"

// FitError refuses a motion put on a skeleton that carries none, or fewer than
// MinFit, of its bones.
type FitError struct {
	File  string // the motion file, when known
	Fit   Fit
	index int // the motion's, among those given
}

func (e *FitError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	f := e.Fit
	fmt.Fprintf(&b, "%s: %s: ", RuleBoneFit, f)
	if f.Matched == 0 {
		b.WriteString("the motion would bake a still rest pose")
	} else {
		fmt.Fprintf(&b, "fewer than %.0f%% (docs/formats/mot.md §13): the motion belongs to another skeleton, and the bones found by chance would take other bones' angles", MinFit*100)
	}
	if len(f.Missing) > 0 {
		ids := make([]string, 0, 8)
		for _, id := range f.Missing[:min(8, len(f.Missing))] {
			ids = append(ids, strconv.Itoa(int(id)))
		}
		more := ""
		if len(f.Missing) > 8 {
			more = ", …"
		}
		fmt.Fprintf(&b, "; missing bone ids %s%s", strings.Join(ids, ", "), more)
	}
	if f.ByMap {
		b.WriteString("; bake it onto its own model, map more of its bones in the Settings.BoneMap given")
	} else {
		b.WriteString("; bake it onto its own model, give a Settings.BoneMap")
	}
	if f.Matched > 0 {
		b.WriteString(", or pass Settings.NoLimits to bake it anyway")
	}
	return b.String()
}

// Fits says how many of each motion's bones rig r's skeleton carries, with
// the ids s.BoneMap or the bones' names give them (§13).
func Fits(r bake.Rig, motions []*mot.Motion, names []string, s Settings) ([]Fit, error) {
	ids, err := motionIDs(r, s.BoneMap)
	if err != nil {
		return nil, &bake.SettingError{Setting: "BoneMap", Err: err}
	}
	has := map[int16]bool{}
	for _, id := range ids {
		has[id] = true
	}
	fits := make([]Fit, len(motions))
	for i, m := range motions {
		f := Fit{Motion: names[i], ByMap: s.BoneMap != nil}
		seen := map[int16]bool{}
		for _, r := range m.Records {
			if seen[r.Bone] || mot.IsCamera(m.Family, r.Bone) || r.Track == 6 || r.Track > 9 {
				continue
			}
			seen[r.Bone] = true
			f.Bones++
			if has[r.Bone] {
				f.Matched++
			} else {
				f.Missing = append(f.Missing, r.Bone)
			}
		}
		slices.Sort(f.Missing)
		fits[i] = f
	}
	return fits, nil
}

// ReadBoneMap reads a YAML map of skeleton bone name → motion bone id.
func ReadBoneMap(path string) (map[string]int, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]int
	if err := yamlread.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("%s: want a map of bone name: motion bone id: %w", path, err)
	}
	return m, nil
}

// Load reads a skinned glTF model and motion files and returns the job that
// bakes one clip per motion onto the model's joints: named after the motion (its
// header name, or the file name), looping as its header flag says.
func Load(rigPath string, motPaths []string, s Settings) (*gltfbake.Model, error) {
	m, err := gltf.Load(rigPath, gltf.Options{Skin: s.Skin, NoMemoryLimit: s.NoLimits})
	if err != nil {
		return nil, err
	}
	motions := make([]*mot.Motion, len(motPaths))
	names := make([]string, len(motPaths))
	for i, p := range motPaths {
		if motions[i], err = mot.Open(p, formats.Lenient()); err != nil { // as the games read them
			return nil, err
		}
		names[i] = motions[i].Name
		if names[i] == "" {
			names[i] = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		}
	}
	r, _, _ := gltfbake.Source(m)
	job, err := Job(r, motions, names, s)
	if fe := (*FitError)(nil); errors.As(err, &fe) {
		fe.File = motPaths[fe.index]
		return nil, fmt.Errorf("%s: %w", rigPath, fe)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rigPath, err)
	}
	// A rig over the bone limit is brought under it as a glTF model's own
	// bake is (gltfbake.Reduce), its merges measured with these motions.
	var notes []string
	red, err := gltfbake.Reduce(m, job)
	if err != nil {
		return nil, err
	}
	if red != nil {
		notes = append(notes, red.Notes()...)
		r, _, _ = gltfbake.Source(m)
		if job, err = Job(r, motions, names, s); err != nil {
			return nil, fmt.Errorf("%s: %w", rigPath, err)
		}
	}
	fits, err := Fits(r, motions, names, s)
	if err != nil {
		return nil, err
	}
	for _, f := range fits {
		notes = append(notes, "motion "+f.String())
	}
	defaulted := s.SpeciesID == nil
	return &gltfbake.Model{Path: rigPath, GLTF: m, Job: job, DefaultSpecies: defaulted, Notes: notes, Reduction: red}, nil
}

// Job returns the job that bakes each motion (clip names[i]) onto rig r's
// skeleton, whose bones get motion bone ids from s.BoneMap or their names (§13).
// A bone with no id keeps its rest pose; a bone with an id takes §12's defaults
// for the tracks the motion lacks. Clips last (frames−1)/60 s one-shot and
// frames/60 s looping, so that a bake at 60 fps samples exactly the motion's
// frames; between frames each track is interpolated linearly.
func Job(r bake.Rig, motions []*mot.Motion, names []string, s Settings) (*bake.Job, error) {
	order := s.RotationOrder
	if order == "" {
		order = "xyz"
	}
	if !validOrder(order) {
		return nil, &bake.SettingError{Setting: "RotationOrder", Err: fmt.Errorf("%q is not an order of x, y and z (xyz, zyx, …)", order)}
	}
	if err := s.Check(nil); err != nil {
		return nil, err
	}
	fps := s.FPS
	if fps == 0 {
		fps = FPS
	}
	ids, err := motionIDs(r, s.BoneMap)
	if err != nil {
		return nil, &bake.SettingError{Setting: "BoneMap", Err: err}
	}
	fits, err := Fits(r, motions, names, s)
	if err != nil {
		return nil, err
	}
	for i, f := range fits {
		// A motion with no bone track has nothing to misplace.
		if f.Bones > 0 && (f.Matched == 0 || float64(f.Matched) < MinFit*float64(f.Bones) && !s.NoLimits) {
			return nil, &FitError{Fit: f, index: i}
		}
	}
	j := &bake.Job{Rig: r}
	if s.NoLimits {
		j.MaxBytes = -1
	}
	// Every motion is evaluated up front: the values of all of them together
	// share one budget, so that many files that each declare 65,535 frames
	// cannot add up to gigabytes.
	values := 0
	for i, m := range motions {
		values += len(m.Records) * m.Frames
		if values > mot.MaxEvaluated && !s.NoLimits {
			return nil, fmt.Errorf("motion %s: the motions' records × frames add up to %d values, more than the %d (%d MB) evaluated at once: bake fewer motions together, or lift the limit (Settings.NoLimits)",
				names[i], values, mot.MaxEvaluated, mot.MaxEvaluated*8/1_000_000)
		}
	}
	if s.SpeciesID != nil {
		j.SpeciesID = *s.SpeciesID
	} else if s.FreeSpeciesID != nil {
		j.SpeciesID = *s.FreeSpeciesID
	} else {
		j.SpeciesID = roster.FirstFreeID()
	}
	for i, m := range motions {
		ms, err := newMotSource(r.Skeleton, ids, m, order)
		if err != nil {
			return nil, fmt.Errorf("motion %s: %w", names[i], err)
		}
		d := float64(m.Frames-1) / FPS
		if m.Loops() {
			d = float64(m.Frames) / FPS
		}
		j.Motions = append(j.Motions, bake.Motion{Name: names[i], Duration: max(0, d), NewSampler: func() bake.Sampler { return ms }})
		j.Clips = append(j.Clips, bake.Clip{Name: names[i], Motion: i, FPS: fps, Loops: m.Loops(), Markers: bpat.NoMarkers()}) // a motion has no combat markers
	}
	return j, nil
}

func validOrder(o string) bool {
	return len(o) == 3 && strings.Count(o, "x") == 1 && strings.Count(o, "y") == 1 && strings.Count(o, "z") == 1
}

var trailingNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^0-9])([0-9]+)$`) })

// motionIDs gives each skeleton bone its motion bone id (§13), or none.
func motionIDs(r bake.Rig, boneMap map[string]int) (map[int]int16, error) {
	sk := r.Skeleton
	ids := map[int]int16{}
	if boneMap != nil {
		for name, id := range boneMap {
			b := sk.Index(name)
			if b < 0 {
				return nil, fmt.Errorf("no bone %q in the skeleton", name)
			}
			if id < math.MinInt16 || id > math.MaxInt16 {
				return nil, fmt.Errorf("bone %q: id %d is not a 16-bit motion bone id", name, id)
			}
			ids[b] = int16(id)
		}
	} else {
		for b, name := range sk.Names {
			if m := trailingNumber().FindStringSubmatch(name); m != nil {
				if id, err := strconv.ParseInt(m[1], 10, 16); err == nil {
					ids[b] = int16(id)
				}
			}
		}
	}
	// Bone −1 is the skeleton's root: the first palette bone whose parent is not
	// a palette bone, unless the map names another.
	for _, id := range ids {
		if id == mot.RootBone {
			return ids, nil
		}
	}
	inPalette := map[int]bool{}
	for _, b := range r.PaletteBones() {
		inPalette[b] = true
	}
	for _, b := range r.PaletteBones() {
		if p := sk.Parents[b]; p < 0 || !inPalette[p] {
			if _, taken := ids[b]; !taken {
				ids[b] = mot.RootBone
			}
			break
		}
	}
	return ids, nil
}

// motSource is a motion's evaluated tracks bound to skeleton bones. It keeps no
// state while sampling, so one serves every worker.
type motSource struct {
	frames int
	loops  bool
	order  string
	bones  []motBone
	rest   []rig.Transform
}

// motBone is one animated bone: per component (translation x, y, z, rotation x,
// y, z, scale x, y, z) its values per frame, nil when the motion has none.
type motBone struct {
	bone   int
	tracks [9][]float64
}

func newMotSource(sk *rig.Skeleton, ids map[int]int16, m *mot.Motion, order string) (*motSource, error) {
	vals, err := m.Evaluate()
	if err != nil {
		return nil, err
	}
	byID := map[int16]*motBone{}
	src := &motSource{frames: m.Frames, loops: m.Loops(), order: order, rest: sk.RestPose()}
	for b := range sk.Len() {
		if _, ok := ids[b]; ok {
			src.bones = append(src.bones, motBone{bone: b})
		}
	}
	for i := range src.bones {
		byID[ids[src.bones[i].bone]] = &src.bones[i]
	}
	for i, r := range m.Records {
		mb := byID[r.Bone]
		if mb == nil || mot.IsCamera(m.Family, r.Bone) || r.Track == 6 || r.Track > 9 {
			continue // a bone this skeleton lacks, a camera, or no bone transform
		}
		k := int(r.Track)
		if k > 6 {
			k--
		}
		mb.tracks[k] = vals[i]
	}
	return src, nil
}

// Sample writes the pose at t seconds (frame t·60) of every animated bone.
func (s *motSource) Sample(t float64, pose []rig.Transform) {
	x := t * FPS
	lo := int(math.Floor(x))
	w := x - float64(lo)
	hi := lo + 1
	clamp := func(f int) int {
		if s.loops && s.frames > 0 {
			return ((f % s.frames) + s.frames) % s.frames
		}
		return max(0, min(f, s.frames-1))
	}
	lo, hi = clamp(lo), clamp(hi)
	for i := range s.bones {
		mb := &s.bones[i]
		var c [9]float64
		for k, v := range mb.tracks {
			switch {
			case v != nil && w == 0:
				c[k] = v[lo]
			case v != nil:
				c[k] = v[lo] + (v[hi]-v[lo])*w
			case k < 3:
				c[k] = s.rest[mb.bone].Translation[k]
			case k >= 6:
				c[k] = 1
			}
		}
		pose[mb.bone] = rig.Transform{
			Translation: rig.Vec3{c[0], c[1], c[2]},
			Rotation:    EulerQuat(s.order, c[3], c[4], c[5]),
			Scale:       rig.Vec3{c[6], c[7], c[8]},
		}
	}
}

// EulerQuat is the rotation of Euler angles rx, ry, rz (radians) applied in
// order: "xyz" applies X first, R = Rz·Ry·Rx (§12).
func EulerQuat(order string, rx, ry, rz float64) rig.Quat {
	q := rig.IdentityQuat()
	for _, a := range order {
		var r rig.Quat
		switch a {
		case 'x':
			r = rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, rx)
		case 'y':
			r = rig.QuatFromAxisAngle(rig.Vec3{0, 1, 0}, ry)
		case 'z':
			r = rig.QuatFromAxisAngle(rig.Vec3{0, 0, 1}, rz)
		}
		q = r.Mul(q) // each later axis applies after the ones before
	}
	return q
}

// Export returns a model's skeleton, skin and mesh with the job's clips as glTF
// animations keyed at every baked frame, so the motions open in any glTF viewer.
// The skin keeps the model's joints in their order, and everything stands in the
// scene's space the palettes are baked in (the mesh node at the scene root).
func Export(m *gltfbake.Model) *gltf.Export {
	g := m.GLTF
	sk := g.Skeleton
	e := &gltf.Export{Name: strings.TrimSuffix(filepath.Base(m.Path), filepath.Ext(m.Path)), Skeleton: sk,
		Joints: g.Joints, InverseBind: g.InverseBind, Mesh: g.Mesh}
	for _, c := range m.Job.Clips {
		mo := m.Job.Motions[c.Motion]
		d := mo.Duration
		n := bake.FrameCount(d, c.FPS, c.Loops)
		loops := c.Loops
		ec := gltf.ExportAnimation{Name: c.Name, Meta: gltf.ClipMeta{FPS: c.FPS, Loops: &loops}}
		keys := n
		if loops && d > 0 {
			keys++ // the end, where the loop closes
		}
		smp := mo.NewSampler()
		for f := range keys {
			t := d
			if f < n {
				t = bake.FrameTime(f, n, d, loops)
			}
			pose := sk.RestPose()
			smp.Sample(t, pose)
			ec.Times = append(ec.Times, float32(t))
			ec.Poses = append(ec.Poses, pose)
		}
		e.Clips = append(e.Clips, ec)
	}
	id := m.Job.SpeciesID
	e.Meta.SpeciesID = &id
	return e
}
