package fbx

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/bonebake/bonebake/anim"
	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/rig"
)

// frameRates are FBX's TimeMode values (FbxTime::EMode) as frames per second.
var frameRates = map[int64]float64{1: 120, 2: 100, 3: 60, 4: 50, 5: 48, 6: 30, 7: 30, 8: 29.97, 9: 29.97, 10: 25, 11: 24, 12: 1000, 13: 23.976, 15: 96, 16: 72, 17: 59.94, 18: 119.88}

// FrameRate is the rate clips are sampled at (§11): the file's TimeMode, its
// CustomFrameRate for mode 14, else 30.
func (s *scene) frameRate() float64 {
	mode := s.sc.GlobalSettings.Int("TimeMode", 0)
	if r, ok := frameRates[mode]; ok {
		return r
	}
	if r := s.sc.GlobalSettings.Float("CustomFrameRate", -1); mode == 14 && r > 0 && r <= 1000 {
		return r
	}
	return 30
}

var lclProps = map[string]int{"Lcl Translation": 0, "Lcl Rotation": 1, "Lcl Scaling": 2}

// channels are one model's curves in a stack: each layer's that animates it,
// in the stack's order, and which properties any of them animates.
type channels struct {
	layers []*layerChannels
	set    [3]bool
}

// layerChannels are one layer's curves of one model: [T, R, S][X, Y, Z], with
// the curve node's own values for axes without a curve.
type layerChannels struct {
	layer *animLayer
	c     [3][3]*curve
	def   [3][3]float64
	set   [3]bool
}

// Layer blend modes (FbxAnimLayer::EBlendMode) and accumulation modes.
const (
	blendAdditive            = 0
	blendOverride            = 1
	blendOverridePassthrough = 2
	rotationByLayer          = 0 // quaternion accumulation
	rotationByChannel        = 1 // Euler angles, axis by axis
	scaleMultiply            = 0
	scaleAdditive            = 1
)

// animLayer is an AnimationLayer's blending (§11): the stack's first layer is its
// base, whose values are taken as they are; every later one blends into what
// the layers before it made, by its BlendMode and Weight (percent).
type animLayer struct {
	name       string
	base       bool
	mode       int64
	weight     float64 // 0 … 1
	rotByLayer bool
	scaleAdd   bool
}

// readLayer reads a layer's blending, with the Definitions' template for what
// it does not write; ok is false for a muted layer. What bonebake does not
// blend as FBX does is refused, or said in warn.
func (s *scene) readLayer(st, l *fbxfile.Object, base bool, warn *[]string) (*animLayer, bool, error) {
	t := s.tmpl["AnimationLayer"]
	num := func(name string, def float64) float64 {
		if p := l.Props[name]; p != nil {
			if v, ok := p.Number(0); ok {
				return v
			}
		}
		if p := t[name]; p != nil {
			if v, ok := p.Number(0); ok {
				return v
			}
		}
		return def
	}
	ly := &animLayer{name: l.Name, base: base, mode: int64(num("BlendMode", blendAdditive)), weight: num("Weight", 100) / 100}
	if num("Mute", 0) != 0 {
		return nil, false, nil
	}
	if base {
		return ly, true, nil
	}
	if ly.mode < blendAdditive || ly.mode > blendOverridePassthrough {
		return nil, false, s.fail(RuleLayer, "take %q: layer %q has BlendMode %d; FBX's are 0 (additive), 1 (override) and 2 (override-passthrough)", st.Name, l.Name, ly.mode)
	}
	if !(ly.weight >= 0 && ly.weight <= 1) {
		return nil, false, s.fail(RuleLayer, "take %q: layer %q has Weight %v; a weight is 0 to 100 (percent)", st.Name, l.Name, ly.weight*100)
	}
	if ly.mode == blendOverride && ly.weight < 1 {
		*warn = append(*warn, fmt.Sprintf("take %q: layer %q overrides (BlendMode 1) at weight %v%%: blended as override-passthrough (BlendMode 2), the layers below showing through", st.Name, l.Name, ly.weight*100))
	}
	ly.rotByLayer = int64(num("RotationAccumulationMode", rotationByLayer)) == rotationByLayer
	ly.scaleAdd = int64(num("ScaleAccumulationMode", scaleMultiply)) == scaleAdditive
	if num("Solo", 0) != 0 {
		*warn = append(*warn, fmt.Sprintf("take %q: layer %q is soloed: solo is not applied, every unmuted layer is blended", st.Name, l.Name))
	}
	for _, c := range s.opKids[l.ID] {
		if c.Property == "Weight" {
			*warn = append(*warn, fmt.Sprintf("take %q: layer %q's Weight is animated: its written value %v%% is used throughout", st.Name, l.Name, ly.weight*100))
			break
		}
	}
	return ly, true, nil
}

// blend puts one layer's values x of property p (0 T, 1 R, 2 S) onto v, what
// the layers below made (§11): the base layer's as they are; an additive
// layer's added at its weight (scales multiplied by x^w, or added as w·(x−1)
// under additive scale accumulation); an override layer's blended in,
// v + w·(x − v). Rotations blend as Euler angles, axis by axis.
func (l *animLayer) blend(p int, v *[3]float64, x [3]float64) {
	w := l.weight
	for ax := range 3 {
		switch {
		case l.base:
			v[ax] = x[ax]
		case l.mode != blendAdditive:
			v[ax] += w * (x[ax] - v[ax])
		case p == 2 && !l.scaleAdd:
			if x[ax] > 0 {
				v[ax] *= math.Pow(x[ax], w)
			} else {
				v[ax] *= 1 + w*(x[ax]-1)
			}
		case p == 2:
			v[ax] += w * (x[ax] - 1)
		default:
			v[ax] += w * x[ax]
		}
	}
}

// maxSampleFactor bounds sampling: the values sampled for one stack may be
// at most this many times the keys of the whole file, plus a fixed allowance.
const (
	maxSampleFactor = 16
	sampleAllowance = 1 << 22
)

// clips samples every animation stack (§11) onto the models boneOf numbers.
// Stacks without keys on them are left out, with a warning.
func (s *scene) clips(sk *skeleton, boneOf func(*model) int) ([]anim.Animation, []string, error) {
	var out []anim.Animation
	var warn []string
	fps := s.frameRate()
	totalKeys := 0
	for _, o := range s.sc.Objects {
		if o.Class == "AnimationCurve" {
			if n := o.Node.Child("KeyTime"); n != nil && len(n.Props) > 0 {
				totalKeys += len(n.Props[0].Ints)
			}
		}
	}
	for _, st := range s.sc.Objects {
		if st.Class != "AnimationStack" {
			continue
		}
		chans := map[*model]*channels{}
		velocityWarned, biasWarned := false, false
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		rotWarned := false
		for li, l := range s.objectsOf(s.children[st.ID], "AnimationLayer") {
			ly, ok, err := s.readLayer(st, l, li == 0, &warn)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			for _, cn := range s.objectsOf(s.children[l.ID], "AnimationCurveNode") {
				for _, op := range s.opOf[cn.ID] {
					mo := s.models[op.Parent]
					prop, ok := lclProps[op.Property]
					if mo == nil || !ok || boneOf(mo) < 0 {
						continue
					}
					ch := chans[mo]
					if ch == nil {
						ch = &channels{}
						chans[mo] = ch
					}
					lc := &layerChannels{layer: ly}
					lc.set[prop] = true
					ch.set[prop] = true
					ch.layers = append(ch.layers, lc)
					// An axis without a curve takes the curve node's value, else
					// the model's own (base and override layers) or no change
					// (additive ones).
					static := mo.static()
					lc.def[prop] = [3][3]float64{static.t, static.r, static.s}[prop]
					if !ly.base && ly.mode == blendAdditive {
						lc.def[prop] = [3][3]float64{{}, {}, {1, 1, 1}}[prop]
						if prop == 2 && ly.scaleAdd {
							lc.def[prop] = [3]float64{1, 1, 1}
						}
						if prop == 1 && ly.rotByLayer && !rotWarned {
							rotWarned = true
							warn = append(warn, fmt.Sprintf("take %q: layer %q adds rotations by layer (RotationAccumulationMode 0, as quaternions): bonebake adds them as Euler angles, axis by axis (RotationAccumulationMode 1), which agrees only for rotations about one axis", st.Name, l.Name))
						}
					}
					for ax, nm := range []string{"d|X", "d|Y", "d|Z"} {
						if v, ok := cn.Props[nm].Number(0); ok {
							lc.def[prop][ax] = v
						}
					}
					for _, cc := range s.opKids[cn.ID] {
						ax := map[string]int{"d|X": 0, "d|Y": 1, "d|Z": 2}
						a, ok := ax[cc.Property]
						if !ok {
							continue
						}
						c, err := s.readCurve(cc.Child)
						if err != nil {
							return nil, nil, err
						}
						if c == nil {
							continue
						}
						if c.velocity && !velocityWarned {
							velocityWarned = true
							warn = append(warn, fmt.Sprintf("take %q: curves of %q set tangent velocities, which are not applied (their keys' slopes and weights are)", st.Name, mo.obj.Name))
						}
						if c.bias && !biasWarned {
							biasWarned = true
							warn = append(warn, fmt.Sprintf("take %q: auto keys of %q set a tangent bias, which is not applied (their slopes are the unbiased ones)", st.Name, mo.obj.Name))
						}
						lc.c[prop][a] = c
						lo, hi = min(lo, c.times[0]), max(hi, c.times[len(c.times)-1])
					}
				}
			}
		}
		// A child that leaves out its parent's scale (InheritType 0 or 2)
		// changes when that scale is animated, keys or not (§7).
		for _, m := range s.order {
			if p := m.parent; p != nil && chans[m] == nil && boneOf(m) >= 0 && chans[p] != nil && chans[p].set[2] && m.props.Int("InheritType", 1) != 1 {
				chans[m] = &channels{}
			}
		}
		if lo > hi {
			warn = append(warn, fmt.Sprintf("take %q has no keys on the skeleton: it is not a clip", st.Name))
			continue
		}
		start, end := float64(lo)/TicksPerSecond, float64(hi)/TicksPerSecond
		span := (end - start) * fps
		// The grid alone first (the keys are the file's own, in proportion).
		if est := span + 2; est*float64(len(chans))*10 > float64(maxSampleFactor*totalKeys+sampleAllowance) {
			return nil, nil, s.fail(RuleMemory, "take %q runs %.0f s: %.0f samples of %d bones are far more than the file's %d keys justify", st.Name, end-start, est, len(chans), totalKeys)
		}
		// Samples: the frame-rate grid from the first key, and every key, so
		// that the clip is exact at each key whatever the file's rate.
		ticks := make([]float64, 0, int(span)+2+keysOf(chans))
		for k := 0; float64(k) <= span+1e-3; k++ {
			ticks = append(ticks, float64(lo)+float64(k)*TicksPerSecond/fps)
		}
		for c := range curvesOf(chans) {
			for _, kt := range c.times {
				ticks = append(ticks, float64(kt))
			}
		}
		ticks = append(ticks, float64(hi))
		slices.Sort(ticks)
		times := make([]float32, 0, len(ticks))
		kept := ticks[:0]
		for _, tk := range ticks {
			if tk > float64(hi) {
				tk = float64(hi)
			}
			ts := float32(tk / TicksPerSecond)
			// A grid point within a microsecond of a key is that key.
			if n := len(kept); n > 0 && (tk-kept[n-1] < 1e-6*TicksPerSecond || ts <= times[n-1]) {
				continue
			}
			kept = append(kept, tk)
			times = append(times, ts)
		}
		ticks = kept
		n := len(ticks)
		if n*len(chans)*10 > maxSampleFactor*totalKeys+sampleAllowance {
			return nil, nil, s.fail(RuleMemory, "take %q runs %.0f s: %d samples of %d bones are far more than the file's %d keys justify", st.Name, end-start, n, len(chans), totalKeys)
		}
		a := anim.Animation{Name: st.Name, Start: start, Duration: end}
		// Bones in skeleton order, so that a parent's sampled scale is known
		// before its child's Rrs folding needs it.
		var animated []*model
		for m := range chans {
			animated = append(animated, m)
		}
		slices.SortFunc(animated, func(x, y *model) int { return boneOf(x) - boneOf(y) })
		sampled := make([]map[*model]trs, n)
		for k := range n {
			sampled[k] = map[*model]trs{}
			for _, m := range animated {
				v := m.static()
				dst := [3]*[3]float64{&v.t, &v.r, &v.s}
				for _, lc := range chans[m].layers {
					for p := range 3 {
						if !lc.set[p] {
							continue
						}
						x := lc.def[p]
						for ax := range 3 {
							if c := lc.c[p][ax]; c != nil {
								x[ax] = c.at(ticks[k])
							}
						}
						lc.layer.blend(p, dst[p], x)
					}
				}
				sampled[k][m] = v
			}
		}
		for _, m := range animated {
			b := boneOf(m)
			tt := anim.Track{Bone: b, Path: anim.Translation, Interpolation: anim.Linear, Times: times, Values: make([]float32, 0, 3*n)}
			rt := anim.Track{Bone: b, Path: anim.Rotation, Interpolation: anim.Linear, Times: times, Values: make([]float32, 0, 4*n)}
			scl := anim.Track{Bone: b, Path: anim.Scale, Interpolation: anim.Linear, Times: times, Values: make([]float32, 0, 3*n)}
			prev := rig.IdentityQuat()
			for k := range n {
				l, err := s.localAt(m, sampled[k][m], parentScale(m, sampled[k]))
				if err != nil {
					return nil, nil, err
				}
				l = s.convert(l, m.parent == nil || boneOf(m.parent) < 0)
				q := l.Rotation
				if k > 0 && q.Dot(prev) < 0 { // the short way, as slerp takes it
					q = rig.Quat{-q[0], -q[1], -q[2], -q[3]}
				}
				prev = q
				tt.Values = append(tt.Values, float32(l.Translation[0]), float32(l.Translation[1]), float32(l.Translation[2]))
				rt.Values = append(rt.Values, float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]))
				scl.Values = append(scl.Values, float32(l.Scale[0]), float32(l.Scale[1]), float32(l.Scale[2]))
			}
			a.Tracks = append(a.Tracks, tt, rt, scl)
		}
		out = append(out, a)
	}
	return out, warn, nil
}

// curvesOf yields the curves of a stack's channels.
func curvesOf(chans map[*model]*channels) iter.Seq[*curve] {
	return func(yield func(*curve) bool) {
		for _, ch := range chans {
			for _, lc := range ch.layers {
				for p := range 3 {
					for _, c := range lc.c[p] {
						if c != nil && !yield(c) {
							return
						}
					}
				}
			}
		}
	}
}

// keysOf counts the keys of a stack's curves.
func keysOf(chans map[*model]*channels) int {
	n := 0
	for c := range curvesOf(chans) {
		n += len(c.times)
	}
	return n
}
