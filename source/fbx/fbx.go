// Package fbx turns an FBX file's object graph (formats/fbx) into what every
// bonebake source gives the baker: a character as a gltf.Model (skeleton, joints,
// inverse binds, the skinned mesh with its parts, every animation stack as a
// clip) and, for clips kept in files of their own, a gltf.ClipFile, so that FBX
// characters and animations take the same road as glTF ones
// (docs/formats/fbx.md §6–§11).
package fbx

import (
	"fmt"
	"math"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/rig"
)

// Rule names what an FBX file broke, beyond the reader's format rules.
type Rule string

// The rules Load and LoadClips enforce.
const (
	RuleAxes      Rule = "axes"      // GlobalSettings' axes are not a right-handed basis
	RuleHierarchy Rule = "hierarchy" // a model with two parents, or a cycle
	RuleInherit   Rule = "inherit"   // an inherit type that non-uniform scale makes unrepresentable
	RuleSkin      Rule = "skin"      // no skin where one is needed, or a cluster that cannot be used
	RuleMesh      Rule = "mesh"      // a mesh whose polygons or layers cannot be used
	RuleTake      Rule = "take"      // an animation stack with no keys, or too long to sample
	RuleClipFile  Rule = "clip-file" // a file given for its clips has none
	RuleTransform Rule = "transform" // a transform that is not finite
	RuleMemory    Rule = "memory"    // sampling would take far more memory than the file justifies
	RuleNotFBX    Rule = "not-fbx"   // the file is not an FBX file
	RuleCurve     Rule = "curve"     // an animation curve whose keys disagree with its values
	RuleSkeleton  Rule = "skeleton"  // the skeleton built from the models was refused
	RuleLayer     Rule = "layer"     // an animation layer whose blending FBX does not define
)

// Error is a problem with an FBX file's meaning (the reader's own errors are
// formats.ValidationError).
type Error struct {
	File   string
	Rule   Rule
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("fbx: %s: %s: %s", e.File, e.Rule, e.Detail) }

func (s *scene) fail(rule Rule, detail string, args ...any) error {
	return &Error{File: s.path, Rule: rule, Detail: fmt.Sprintf(detail, args...)}
}

// TicksPerSecond is FBX's time unit: KTime counts 1/46186158000 s.
const TicksPerSecond = 46186158000

// model is a Model object with what the transform rule needs.
type model struct {
	obj    *fbxfile.Object
	parent *model
	kids   []*model
	props  fbxfile.Props // the object's properties over its class template's
}

// scene is a file's graph with its models linked.
type scene struct {
	path   string
	sc     *fbxfile.Scene
	models map[int64]*model
	order  []*model // file order
	// children lists, per object id, the objects connected to it (OO), in
	// connection order; props the OP connections to a property, by parent id.
	children map[int64][]int64
	parents  map[int64][]int64
	opKids   map[int64][]fbxfile.Connection
	opOf     map[int64][]fbxfile.Connection // OP connections by child id
	// conv: the axis rotation to +Y up and the unit scale to metres (§6).
	axis  rig.Quat
	scale float64
	// tmpl: the Definitions' property templates by object class.
	tmpl map[string]fbxfile.Props
}

func open(path string) (*scene, error) {
	f, err := fbxfile.Open(path)
	if err != nil {
		return nil, err
	}
	return fromFile(f, path)
}

// fromFile links a parsed file's graph.
func fromFile(f *fbxfile.File, path string) (*scene, error) {
	sc, err := f.Scene()
	if err != nil {
		return nil, err
	}
	s := &scene{path: path, sc: sc, models: map[int64]*model{}, children: map[int64][]int64{}, parents: map[int64][]int64{}, opKids: map[int64][]fbxfile.Connection{}, opOf: map[int64][]fbxfile.Connection{}}
	if err := s.conversion(); err != nil {
		return nil, err
	}
	for _, c := range sc.Connections {
		switch c.Kind {
		case "OO":
			s.children[c.Parent] = append(s.children[c.Parent], c.Child)
			s.parents[c.Child] = append(s.parents[c.Child], c.Parent)
		case "OP":
			s.opKids[c.Parent] = append(s.opKids[c.Parent], c)
			s.opOf[c.Child] = append(s.opOf[c.Child], c)
		}
	}
	tmpl := templates(f)
	s.tmpl = tmpl
	for _, o := range sc.Objects {
		if o.Class != "Model" {
			continue
		}
		m := &model{obj: o}
		t := tmpl["Model"]
		m.props = make(fbxfile.Props, len(t)+len(o.Props))
		for _, ps := range []fbxfile.Props{t, o.Props} {
			for name, p := range ps {
				if p != nil {
					m.props[name] = p
				}
			}
		}
		s.models[o.ID] = m
		s.order = append(s.order, m)
	}
	for _, m := range s.order {
		for _, p := range s.parents[m.obj.ID] {
			pm := s.models[p]
			if pm == nil {
				continue
			}
			if m.parent != nil && m.parent != pm {
				return nil, s.fail(RuleHierarchy, "model %q has two parent models, %q and %q", m.obj.Name, m.parent.obj.Name, pm.obj.Name)
			}
			m.parent = pm
		}
	}
	for _, m := range s.order { // cycles: a walk up longer than the models
		n := 0
		for p := m.parent; p != nil; p = p.parent {
			if n++; n > len(s.order) {
				return nil, s.fail(RuleHierarchy, "model %q is its own ancestor", m.obj.Name)
			}
		}
		if m.parent != nil {
			m.parent.kids = append(m.parent.kids, m)
		}
	}
	return s, nil
}

// templates reads the Definitions' property templates by object class: the
// values an object's unwritten properties take.
func templates(f *fbxfile.File) map[string]fbxfile.Props {
	out := map[string]fbxfile.Props{}
	defs := f.Top("Definitions")
	if defs == nil {
		return out
	}
	for _, ot := range defs.Children {
		if ot.Name != "ObjectType" || len(ot.Props) == 0 {
			continue
		}
		if pt := ot.Child("PropertyTemplate"); pt != nil {
			out[ot.Props[0].String] = fbxfile.ReadProps(pt)
		}
	}
	return out
}

// conversion reads GlobalSettings (§6): the file's up, front and coordinate
// axes with their signs, and its unit in centimetres.
func (s *scene) conversion() error {
	gs := s.sc.GlobalSettings
	up, upSign := gs.Int("UpAxis", 1), gs.Int("UpAxisSign", 1)
	front, frontSign := gs.Int("FrontAxis", 2), gs.Int("FrontAxisSign", 1)
	coord, coordSign := gs.Int("CoordAxis", 0), gs.Int("CoordAxisSign", 1)
	sign := func(v int64) float64 {
		if v < 0 {
			return -1
		}
		return 1
	}
	ok := up >= 0 && up < 3 && front >= 0 && front < 3 && coord >= 0 && coord < 3 && up != front && up != coord && front != coord
	if !ok {
		return s.fail(RuleAxes, "GlobalSettings names axes up %d, front %d, coord %d: not three different axes of 0 (X), 1 (Y), 2 (Z)", up, front, coord)
	}
	// Row r of the matrix takes a file vector to bonebake's axis r: X is the
	// file's coord axis, Y its up axis, Z its front axis.
	var m [9]float64
	m[0*3+int(coord)] = sign(coordSign)
	m[1*3+int(up)] = sign(upSign)
	m[2*3+int(front)] = sign(frontSign)
	det := m[0]*(m[4]*m[8]-m[5]*m[7]) - m[1]*(m[3]*m[8]-m[5]*m[6]) + m[2]*(m[3]*m[7]-m[4]*m[6])
	if det < 0 {
		return s.fail(RuleAxes, "GlobalSettings' axes (up %d%+d, front %d%+d, coord %d%+d) are left-handed: a mirrored scene is not converted", up, upSign, front, frontSign, coord, coordSign)
	}
	s.axis = rig.QuatFromMat3(m).Normalize()
	unit := gs.Float("UnitScaleFactor", 1)
	if !(unit > 0) || math.IsInf(unit, 0) {
		return s.fail(RuleAxes, "GlobalSettings' UnitScaleFactor is %v; it must be a positive number of centimetres", unit)
	}
	s.scale = unit / 100
	return nil
}

// axisMat is the conversion as a matrix: axis rotation times unit scale.
func (s *scene) axisMat() rig.Mat4 {
	m := s.axis.Matrix()
	for r := range 3 {
		for c := range 3 {
			m[r*4+c] *= s.scale
		}
	}
	return m
}
