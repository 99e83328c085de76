// Package bvh is the BVH motion-capture source (docs/formats/bvh.md §4–6): a
// BVH file read by formats/bvh, put in bonebake's space (+Y up, metres), as the
// same Model and ClipFile that source/gltf gives for a glTF file, so that
// gltfbake bakes a BVH on its own skeleton and binds it onto a character with
// the one binding it has for glTF clip files.
package bvh

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/formats"
	bvhfile "github.com/bonebake/bonebake/formats/bvh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/stride"
)

// Options say what the file does not: its up axis and its unit.
type Options struct {
	// Up is the file's up axis, "+Y", "-Y", "+Z", "-Z", "+X" or "-X" ("Y" is
	// "+Y"); "" finds it from the skeleton (§4).
	Up string
	// Scale, when > 0, takes the file's lengths to metres; 0 guesses it from
	// the skeleton's height (§4).
	Scale float64
}

// Space is how a file was put in bonebake's space, and what to tell the user.
type Space struct {
	Up        string   // the file's up axis, "+Z" …
	UpFound   bool     // found from the skeleton rather than given
	Turn      rig.Quat // the rotation that takes Up to +Y
	Height    float64  // the skeleton's height at rest, in the file's units
	Scale     float64  // file units → metres
	Units     string   // "metres", "centimetres", "millimetres", "given", "unknown"
	Notes     []string // what the user should be told
	SpaceName string   // the name of the space node above the roots
	File      *bvhfile.File
}

// IsBVH reports whether the file at path is a BVH file, by its first bytes.
func IsBVH(path string) (bool, error) {
	k, err := formats.SniffFile(path)
	return k == formats.BVH, err
}

// CheckUp says whether up names an axis Options.Up accepts.
func CheckUp(up string) error {
	if _, _, ok := axis(up); !ok {
		return fmt.Errorf("%q: an axis, +Y, -Y, +Z, -Z, +X or -X", up)
	}
	return nil
}

func axis(up string) (k int, sign float64, ok bool) {
	s := strings.ToUpper(strings.TrimSpace(up))
	sign = 1
	if r, cut := strings.CutPrefix(s, "-"); cut {
		s, sign = r, -1
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	switch s {
	case "X":
		return 0, sign, true
	case "Y":
		return 1, sign, true
	case "Z":
		return 2, sign, true
	}
	return 0, 0, false
}

// turnFor is the rotation taking the axis (k, sign) to +Y: about X for Y and
// Z (Z up turns as Blender's glTF exporter turns it: (x, y, z) → (x, z, −y)),
// about Z for X.
func turnFor(k int, sign float64) rig.Quat {
	switch {
	case k == 1 && sign > 0:
		return rig.IdentityQuat()
	case k == 1:
		return rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, math.Pi)
	case k == 2:
		return rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, -sign*math.Pi/2)
	default:
		return rig.QuatFromAxisAngle(rig.Vec3{0, 0, 1}, sign*math.Pi/2)
	}
}

// Read reads the BVH file at path and decides its space (§4).
func Read(path string, o Options) (*Space, error) {
	f, err := bvhfile.Open(path)
	if err != nil {
		return nil, err
	}
	sp := &Space{File: f}
	rest, joints := restPositions(f)
	if o.Up != "" {
		k, sign, ok := axis(o.Up)
		if !ok {
			return nil, fmt.Errorf("%s: up axis %q: +Y, -Y, +Z, -Z, +X or -X", path, o.Up)
		}
		sp.Up, sp.Turn = axisName(k, sign), turnFor(k, sign)
	} else {
		k, sign, ok := findUp(f, rest, joints)
		sp.Up, sp.UpFound, sp.Turn = axisName(k, sign), true, turnFor(k, sign)
		if !ok {
			sp.Notes = append(sp.Notes, fmt.Sprintf("%s: no up axis stands out in its skeleton; took +Y, BVH's usual (Options.Up says otherwise)", filepath.Base(path)))
		}
	}
	k, _, _ := axis(sp.Up)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range rest {
		lo, hi = min(lo, p[k]), max(hi, p[k])
	}
	sp.Height = hi - lo
	switch h := sp.Height; {
	case o.Scale > 0:
		sp.Scale, sp.Units = o.Scale, "given"
	case h >= 0.3 && h < 3:
		sp.Scale, sp.Units = 1, "metres"
	case h >= 30 && h < 300:
		sp.Scale, sp.Units = 0.01, "centimetres"
	case h >= 300 && h < 3000:
		sp.Scale, sp.Units = 0.001, "millimetres"
	default:
		sp.Scale, sp.Units = 1, "unknown"
		sp.Notes = append(sp.Notes, fmt.Sprintf("%s: its skeleton is %.4g units tall, which is no body's height in metres, centimetres or millimetres; its units are taken for metres (Options.Scale gives the factor to metres)",
			filepath.Base(path), h))
	}
	sp.SpaceName = "bvh_space"
	for taken := true; taken; {
		taken = false
		for _, j := range f.Joints {
			if j.Name == sp.SpaceName {
				sp.SpaceName += "_"
				taken = true
			}
		}
	}
	return sp, nil
}

func axisName(k int, sign float64) string {
	s := "+"
	if sign < 0 {
		s = "-"
	}
	return s + string(rune('X'+k))
}

// restPositions are the joints' and end sites' positions at rest (every
// rotation 0, every joint at its offset), in the file's space: all of them,
// and the joints' alone (index by joint).
func restPositions(f *bvhfile.File) (all, joints [][3]float64) {
	joints = make([][3]float64, len(f.Joints))
	all = make([][3]float64, 0, len(f.Joints))
	for i, j := range f.Joints {
		joints[i] = j.Offset
		if j.Parent >= 0 {
			joints[i] = add(joints[j.Parent], j.Offset)
		}
		all = append(all, joints[i])
		for _, e := range j.EndSites {
			all = append(all, add(joints[i], e))
		}
	}
	return all, joints
}

func add(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// findUp finds the up axis (§4): from the first joint with more than one child
// (the pelvis), the bones below it, summed, point down. ok is false when no
// axis stands out (the sum under 10% of the bones' length), and +Y is taken.
// The first branch is not always the pelvis: a game rig's root on the ground
// holds IK feet and pole targets beside the body (the three.js robot as
// Blender's BVH exporter writes it, whose sum points forward). So the axis
// taken is the first, in the order of the sum, that stands the body up:
// the joints named as feet (stride.FootName) in the lowest quarter of the
// skeleton at rest, and a joint named head, where there is one, above its
// middle; the sum's own axis where no axis does.
func findUp(f *bvhfile.File, rest, joints [][3]float64) (k int, sign float64, ok bool) {
	children := make([]int, len(f.Joints))
	for _, j := range f.Joints {
		if j.Parent >= 0 {
			children[j.Parent]++
		}
	}
	branch := 0
	for branch < len(f.Joints) && children[branch]+len(f.Joints[branch].EndSites) == 1 && children[branch] == 1 {
		branch++ // its one child is the next joint
	}
	if branch == len(f.Joints) {
		branch = 0
	}
	below := make([]bool, len(f.Joints))
	below[branch] = true
	var sum [3]float64
	total := 0.0
	bone := func(v [3]float64) {
		sum = add(sum, v)
		total += math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	}
	for i, j := range f.Joints {
		if i != branch && (j.Parent < 0 || !below[j.Parent]) {
			continue
		}
		below[i] = true
		if i != branch {
			bone(j.Offset)
		}
		for _, e := range j.EndSites {
			bone(e)
		}
	}
	for a := range 3 {
		if math.Abs(sum[a]) > math.Abs(sum[k]) {
			k = a
		}
	}
	if total == 0 || math.Abs(sum[k]) < 0.1*total {
		return 1, 1, false
	}
	type signed struct {
		k    int
		sign float64
	}
	axes := make([]signed, 0, 6)
	for a := range 3 {
		axes = append(axes, signed{a, 1}, signed{a, -1})
	}
	// Most against the sum first; the sum's own axis is the first.
	slices.SortStableFunc(axes, func(x, y signed) int { return cmp.Compare(y.sign*-sum[y.k], x.sign*-sum[x.k]) })
	for _, ax := range axes {
		if standsUp(f, rest, joints, ax.k, ax.sign) {
			return ax.k, ax.sign, true
		}
	}
	return k, -math.Copysign(1, sum[k]), true
}

// standsUp says whether, with up the signed axis k, the joints named as feet
// stand in the lowest quarter of the skeleton at rest and those named head
// above its middle; true where no joint is named a foot.
func standsUp(f *bvhfile.File, rest, joints [][3]float64, k int, sign float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range rest {
		lo, hi = min(lo, sign*p[k]), max(hi, sign*p[k])
	}
	height := func(named func(string) bool) (h float64, n int) {
		for i, j := range f.Joints {
			if named(j.Name) {
				h += sign*joints[i][k] - lo
				n++
			}
		}
		return h / float64(max(n, 1)) / (hi - lo), n
	}
	feet, n := height(stride.FootName)
	if n == 0 {
		return true
	}
	head, n := height(func(s string) bool { return strings.Contains(strings.ToLower(s), "head") })
	return feet <= 0.25 && (n == 0 || head > 0.5)
}

// skeleton is the file's joints under the space node: names, parents and
// rests (lengths in metres).
func (sp *Space) skeleton() (names []string, parents []int, rest []rig.Transform) {
	f := sp.File
	names = append(names, sp.SpaceName)
	parents = append(parents, -1)
	rest = append(rest, rig.Transform{Rotation: sp.Turn, Scale: rig.Vec3{1, 1, 1}})
	for _, j := range f.Joints {
		names = append(names, j.Name)
		parents = append(parents, j.Parent+1)
		rest = append(rest, rig.Transform{Translation: rig.Vec3(j.Offset).Scale(sp.Scale), Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}})
	}
	return names, parents, rest
}

// animation is the file's motion as one animation on the skeleton's bones
// (joint j is bone j+1): a translation track for each joint with position
// channels, a rotation track for each with rotation channels, a key per frame
// at f × Frame Time, LINEAR (§5).
func (sp *Space) animation(name string) anim.Animation {
	f := sp.File
	times := make([]float32, f.Frames)
	for i := range times {
		times[i] = float32(float64(i) * f.FrameTime)
	}
	a := anim.Animation{Name: name, Duration: float64(times[len(times)-1])}
	for j, jt := range f.Joints {
		var moves, turns bool
		for _, c := range jt.Channels {
			moves = moves || !c.Rotation()
			turns = turns || c.Rotation()
		}
		var tv, rv []float32
		if moves {
			tv = make([]float32, 0, 3*f.Frames)
		}
		if turns {
			rv = make([]float32, 0, 4*f.Frames)
		}
		for fr := range f.Frames {
			t, q := f.Local(j, fr)
			if moves {
				tv = append(tv, float32(t[0]*sp.Scale), float32(t[1]*sp.Scale), float32(t[2]*sp.Scale))
			}
			if turns {
				rv = append(rv, float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]))
			}
		}
		if moves {
			a.Tracks = append(a.Tracks, anim.Track{Bone: j + 1, Path: anim.Translation, Interpolation: anim.Linear, Times: times, Values: tv})
		}
		if turns {
			a.Tracks = append(a.Tracks, anim.Track{Bone: j + 1, Path: anim.Rotation, Interpolation: anim.Linear, Times: times, Values: rv})
		}
	}
	return a
}

func baseName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// Load reads the BVH file at path as a model without a mesh (§5): its
// skeleton under the space node, every joint a palette bone in file order,
// one clip named after the file at the file's frame rate. Space says how it
// was placed; its Notes are also the model's Warnings.
func Load(path string, o Options) (*gltf.Model, *Space, error) {
	sp, err := Read(path, o)
	if err != nil {
		return nil, nil, err
	}
	names, parents, rest := sp.skeleton()
	skel, err := rig.New(names, parents, rest)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	n := len(sp.File.Joints)
	m := &gltf.Model{Path: path, Skeleton: skel, MeshNode: -1, MeshPlacement: rig.IdentityMat4(), Warnings: sp.Notes}
	m.Nodes = make([]int, skel.Len())
	for b := range m.Nodes {
		m.Nodes[b] = b
	}
	global := skel.RestModelSpace()
	for j := range n {
		m.Joints = append(m.Joints, j+1)
		m.JointNames = append(m.JointNames, names[j+1])
		inv, ok := global[j+1].Inverse()
		if !ok {
			return nil, nil, errors.New(path + ": a joint's rest matrix has no inverse")
		}
		m.InverseBind = append(m.InverseBind, inv)
	}
	m.Clips = []anim.Animation{sp.animation(baseName(path))}
	m.ClipMeta = []gltf.ClipMeta{{FPS: 1 / sp.File.FrameTime}}
	return m, sp, nil
}

// LoadClips reads the BVH file at path as a clip file (§6): its nodes are the
// space node (unnamed, so that it binds nothing) and the joints, its one
// animation unnamed (named after the file by the binding), its joints marked
// as having no orientation of their own.
func LoadClips(path string, o Options) (*gltf.ClipFile, error) {
	sp, err := Read(path, o)
	if err != nil {
		return nil, err
	}
	names, parents, rest := sp.skeleton()
	cf := &gltf.ClipFile{Path: path, Format: "bvh", Unoriented: true, Notes: sp.Notes}
	for i := range names {
		name := names[i]
		if i == 0 {
			name = ""
		}
		cf.Nodes = append(cf.Nodes, gltf.ClipNode{Name: name, Parent: parents[i], Rest: rest[i]})
	}
	cf.Animations = []anim.Animation{sp.animation(baseName(path))}
	cf.Unnamed = []bool{true}
	return cf, nil
}
