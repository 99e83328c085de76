package gltfbake

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/stride"
)

// Reduction says how a rig with more joints than the bone limit was brought
// under it (docs/formats/gltf.md §1.4): the joints no vertex is weighted to
// dropped, then the least important deforming leaf joints merged into their
// parents.
type Reduction struct {
	// Joints is the skin's joint count before, MaxBones the limit it was
	// brought under.
	Joints, MaxBones int
	// Dropped names the joints no vertex is weighted to and nothing names.
	Dropped []string
	// Merged lists the merges in the order they were made.
	Merged    []Merge
	limitText string
	// Deviation is the farthest any vertex of the mesh lands from where the
	// full rig puts it, over every frame of every clip, in the model's units
	// (metres for glTF, after any scale); 0 when no joint was merged.
	Deviation float64
	// ByJoints: the model has no mesh, and the points measured are its
	// joints and its leaf joints' tips (jointPoints), not vertices.
	ByJoints bool
}

// Merge is one joint folded into its parent: its vertices skin with Into's
// palette entry.
type Merge struct{ Joint, Into string }

// maxSelectionFrames bounds the frames the choice of merges is measured on
// (evenly spread over every clip): the choice is a ranking, while the
// deviation reported is measured on every frame.
const maxSelectionFrames = 512

// CheckMaxBones is the rule for a bone limit a user asks for (Settings.MaxBones,
// max_bones): 1 to the 64 a BPAT file holds.
func CheckMaxBones(n int) error {
	if n < 1 || n > bpat.MaxBones {
		return fmt.Errorf("%d: a BPAT file holds 1 to %d bones", n, bpat.MaxBones)
	}
	return nil
}

// namedJoints marks the joints the manifest names (sockets, feet, root bone):
// they stay in the palette whatever their weights.
func namedJoints(m *gltf.Model, mf *Manifest) []bool {
	named := make([]bool, len(m.Joints))
	for _, name := range append(slices.Clone(mf.Feet), mf.RootBone) {
		if j := slices.Index(m.JointNames, name); j >= 0 {
			named[j] = true
		}
	}
	for _, so := range mf.Sockets {
		if j := slices.Index(m.JointNames, so.Bone); j >= 0 {
			named[j] = true
		}
	}
	return named
}

// dropUnweighted removes the joints no vertex is weighted to and the manifest
// does not name: the one rule of --deforming-only and of a rig over the bone
// limit. It returns the dropped joints' names.
func dropUnweighted(m *gltf.Model, mf *Manifest) ([]string, error) {
	keep := m.WeightedJoints()
	for j, n := range namedJoints(m, mf) {
		keep[j] = keep[j] || n
	}
	return m.KeepJoints(keep)
}

// reduce brings m's palette to at most limit joints: unweighted joints first,
// then merges of deforming leaf joints, least vertex error first, the error
// measured with job's clips (job is m's job before any change). The frames are
// posed by the engine, so the deviation is that of the palettes the bake writes.
//
// limitText says where the limit comes from: "Settings.MaxBones 30", "max_bones 30",
// or BPAT's own limit when none was asked for.
func reduce(m *gltf.Model, mf *Manifest, job *bake.Job, limit int, limitText string) (*Reduction, error) {
	red := &Reduction{Joints: len(m.Joints), MaxBones: limit, limitText: limitText}
	over := func() string {
		return fmt.Sprintf("%s: the skin has %d joints, more than %s", m.Path, red.Joints, limitText)
	}
	if m.MeshError != nil {
		return nil, fmt.Errorf("%s, and its joints cannot be told apart by their vertices: %s", over(), m.MeshError)
	}
	if m.Mesh == nil {
		// A skeleton without a mesh (a BVH file on its own): its joints' own
		// positions stand in for vertices, and go again once it is reduced.
		m.Mesh, red.ByJoints = jointPoints(m), true
		defer func() { m.Mesh = nil }()
	}
	dropped, err := dropUnweighted(m, mf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	red.Dropped = dropped
	if len(m.Joints) <= limit {
		return red, nil
	}

	n := len(m.Joints)
	jointOf := make([]int, m.Skeleton.Len()) // skeleton bone → joint, -1
	for b := range jointOf {
		jointOf[b] = -1
	}
	for j, b := range m.Joints {
		jointOf[b] = j
	}
	parent := make([]int, n) // the nearest joint above each joint, -1 for a root
	for j, b := range m.Joints {
		parent[j] = -1
		for p := m.Skeleton.Parents[b]; p >= 0; p = m.Skeleton.Parents[p] {
			if jointOf[p] >= 0 {
				parent[j] = jointOf[p]
				break
			}
		}
	}
	// The joints no merge can remove: the roots, the named joints, the feet
	// and root that measure ground speed (found as the gait sidecar finds
	// them, docs/formats/gait.md §2: a merged foot would stop measuring), and
	// every joint above one of those (it never becomes a leaf).
	fixed := namedJoints(m, mf)
	if gr, err := stride.NewRig(m.Skeleton, m.Joints, gaitOptions(m, mf)); err == nil {
		for _, b := range append(slices.Clone(gr.Feet), gr.Root) {
			if j := jointOf[b]; j >= 0 {
				fixed[j] = true
			}
		}
	} // else Load reports the setting at fault
	for j := range fixed {
		if fixed[j] {
			for p := parent[j]; p >= 0 && !fixed[p]; p = parent[p] {
				fixed[p] = true
			}
		}
	}
	least := 0
	for j := range fixed {
		if parent[j] < 0 {
			fixed[j] = true
		}
		if fixed[j] {
			least++
		}
	}
	if least > limit {
		fix := fmt.Sprintf("a limit of %d or more (Settings.MaxBones, max_bones) reaches it", least)
		if least > bpat.MaxBones {
			fix = fmt.Sprintf("a BPAT file holds at most %d: name fewer bones in sockets, feet and root_bone", bpat.MaxBones)
		}
		return nil, fmt.Errorf("%s (%d after dropping the joints no vertex is weighted to): merging leaf joints into their parents leaves at least %d (the root joints, the joints sockets name, the feet and root that measure ground speed, and the joints above them); %s",
			over(), n, least, fix)
	}

	fr, err := newFrames(m, job)
	if err != nil {
		return nil, err
	}
	e := newMergeError(m, fr)
	into := make([]int, n) // each joint's current target
	for j := range into {
		into[j] = j
	}
	alive := make([]bool, n)
	children := make([]int, n)
	for j := range n {
		alive[j] = true
		if parent[j] >= 0 {
			children[parent[j]]++
		}
	}
	cost := make([]float64, n)
	fresh := make([]bool, n) // cost[j] is up to date
	sel := fr.selection()
	for left := n; left > limit; left-- {
		best := -1
		for c := range n {
			if !alive[c] || fixed[c] || children[c] > 0 {
				continue
			}
			if !fresh[c] {
				cost[c] = e.worst(into, c, parent[c], sel)
				fresh[c] = true
			}
			// Least error first; among equals the joint with fewer vertices,
			// then the later (deeper) one.
			if best < 0 || cost[c] < cost[best] || cost[c] == cost[best] && len(e.verts[c]) <= len(e.verts[best]) {
				best = c
			}
		}
		p := parent[best]
		// The merge changes the error of every candidate that shares a vertex
		// with the merged joint's vertices.
		for _, v := range e.affected(into, best) {
			for k, j := range m.Mesh.Joints[v] {
				if m.Mesh.Weights[v][k] > 0 {
					fresh[into[j]] = false
				}
			}
		}
		for j := range into {
			if into[j] == best {
				into[j] = p
			}
		}
		fresh[p] = false
		alive[best] = false
		children[p]--
		red.Merged = append(red.Merged, Merge{Joint: m.JointNames[best], Into: m.JointNames[p]})
	}
	red.Deviation = e.total(into, fr.all())
	if _, err := m.MergeJoints(into); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	return red, nil
}

// jointPoints stands in for the mesh of a skeleton that has none (a BVH file
// baked on its own, docs/formats/bvh.md §5): a point at each joint, and one at
// each leaf joint's tip (as far beyond it as its bone from its parent is long,
// where an end site would be), each wholly weighted to its joint. A merge's
// error is then the motion's positional error: how far the merged joints and
// tips land from where the full skeleton puts them.
func jointPoints(m *gltf.Model) *gltf.Mesh {
	rest := m.Skeleton.RestModelSpace()
	leaf := make([]bool, m.Skeleton.Len())
	for b := range leaf {
		leaf[b] = true
	}
	for _, p := range m.Skeleton.Parents {
		if p >= 0 {
			leaf[p] = false
		}
	}
	out := &gltf.Mesh{}
	add := func(p rig.Vec3, j int) {
		out.Positions = append(out.Positions, [3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
		out.Joints = append(out.Joints, [4]uint16{uint16(j)})
		out.Weights = append(out.Weights, [4]float32{1})
	}
	for j, b := range m.Joints {
		o := rest[b].Translation()
		add(o, j)
		if p := m.Skeleton.Parents[b]; leaf[b] && p >= 0 {
			add(o.Add(o.Sub(rest[p].Translation())), j)
		}
	}
	return out
}

// frames holds the palettes of every frame of a job's clips, as the engine
// poses them: frame f, joint j at pal[(f·n + j)·16:].
type frames struct {
	pal   []float32
	n     int // joints per frame
	count int
}

// newFrames poses every frame of job's clips with m's current joints as the
// palette, as the engine does (bake's frame times, rig.PutPalette's float32
// palettes): the BPAT file cannot hold the full rig, so bake.Bake cannot.
func newFrames(m *gltf.Model, job *bake.Job) (*frames, error) {
	f := &frames{n: len(m.Joints)}
	type clipFrames struct {
		start, dur float64
		n          int
	}
	var cs []clipFrames
	for i := range job.Clips {
		c := &job.Clips[i]
		if err := bake.CheckFPS(c.FPS); err != nil {
			return nil, fmt.Errorf("%s: clip %q: fps %w", m.Path, c.Name, err)
		}
		start, dur := job.Span(c)
		n := bake.FrameCount(dur, c.FPS, c.Loops)
		cs = append(cs, clipFrames{start, dur, n})
		f.count += n
	}
	if size, limit := int64(f.count)*int64(f.n)*64, job.ByteLimit(); f.count > bake.MaxFrames || limit > 0 && size > limit {
		return nil, fmt.Errorf("%s: measuring the merge of joints would pose %d frames of %d joints, more than the bake's limits: lower the fps or shorten the clips", m.Path, f.count, f.n)
	}
	f.pal = make([]float32, f.count*f.n*16)
	sk := m.Skeleton
	local, global := make([]rig.Transform, sk.Len()), make([]rig.Mat4, sk.Len())
	at := 0
	for i, c := range cs {
		s := job.Motions[job.Clips[i].Motion].NewSampler()
		copy(local, sk.Rest)
		for fi := range c.n {
			s.Sample(c.start+bake.FrameTime(fi, c.n, c.dur, job.Clips[i].Loops), local)
			sk.ModelSpace(local, global)
			rig.PutPalette(f.pal[at*f.n*16:], global, m.Joints)
			at++
		}
	}
	return f, nil
}

// all lists every frame; selection at most maxSelectionFrames of them, evenly
// spread.
func (f *frames) all() []int {
	out := make([]int, f.count)
	for i := range out {
		out[i] = i
	}
	return out
}

func (f *frames) selection() []int {
	if f.count <= maxSelectionFrames {
		return f.all()
	}
	out := make([]int, maxSelectionFrames)
	for i := range out {
		out[i] = i * f.count / maxSelectionFrames
	}
	return out
}

// point applies joint j's palette at frame fi to p.
func (f *frames) point(fi, j int, p rig.Vec3) rig.Vec3 {
	a := f.pal[(fi*f.n+j)*16:][:12]
	return rig.Vec3{
		float64(a[0])*p[0] + float64(a[1])*p[1] + float64(a[2])*p[2] + float64(a[3]),
		float64(a[4])*p[0] + float64(a[5])*p[1] + float64(a[6])*p[2] + float64(a[7]),
		float64(a[8])*p[0] + float64(a[9])*p[1] + float64(a[10])*p[2] + float64(a[11]),
	}
}

// mergeError measures how far merges move the mesh's vertices from where the
// full rig skins them.
type mergeError struct {
	m     *gltf.Model
	fr    *frames
	verts [][]int // verts[j]: the vertices weighted to joint j
}

func newMergeError(m *gltf.Model, fr *frames) *mergeError {
	e := &mergeError{m: m, fr: fr, verts: make([][]int, len(m.Joints))}
	for v, js := range m.Mesh.Joints {
		for k, j := range js {
			if m.Mesh.Weights[v][k] > 0 && !slices.Contains(e.verts[j], v) {
				e.verts[j] = append(e.verts[j], v)
			}
		}
	}
	return e
}

// affected lists the vertices weighted to a joint whose target is c.
func (e *mergeError) affected(into []int, c int) []int {
	var out []int
	for j, t := range into {
		if t == c {
			out = append(out, e.verts[j]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// worst is the largest deviation, over the frames, of the vertices that
// merging joint c into p would move, with the merges into already made.
func (e *mergeError) worst(into []int, c, p int, frames []int) float64 {
	next := func(j int) int {
		if t := into[j]; t != c {
			return t
		}
		return p
	}
	return e.deviation(e.affected(into, c), next, frames)
}

// total is the largest deviation of every vertex under the merges into.
func (e *mergeError) total(into []int, frames []int) float64 {
	var moved []int
	for v, js := range e.m.Mesh.Joints {
		for k, j := range js {
			if e.m.Mesh.Weights[v][k] > 0 && into[j] != int(j) {
				moved = append(moved, v)
				break
			}
		}
	}
	return e.deviation(moved, func(j int) int { return into[j] }, frames)
}

// deviation is the largest distance, over the vertices and frames, between a
// vertex skinned by the full rig, Σ w·P(j)·IBM(j)·v, and by the joints target
// gives, Σ w·P(target(j))·IBM(target(j))·v.
func (e *mergeError) deviation(verts []int, target func(j int) int, frames []int) float64 {
	// Split over the cores when the work is worth a goroutine: the vertices
	// are independent, and the largest of the parts' maxima is the same
	// whatever the split.
	workers := min(runtime.GOMAXPROCS(0), len(verts)*len(frames)/(1<<16)+1, len(verts))
	if workers <= 1 {
		return e.deviationOf(verts, target, frames)
	}
	parts := make([]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = e.deviationOf(verts[w*len(verts)/workers:(w+1)*len(verts)/workers], target, frames)
		}()
	}
	wg.Wait()
	worst := 0.0
	for _, p := range parts {
		if math.IsInf(p, 1) {
			return p
		}
		worst = max(worst, p)
	}
	return worst
}

// deviationOf is deviation on the calling goroutine.
func (e *mergeError) deviationOf(verts []int, target func(j int) int, frames []int) float64 {
	mm, fr := e.m.Mesh, e.fr
	worst := 0.0
	type slot struct {
		w          float64
		j, t       int
		full, part rig.Vec3 // IBM(j)·v, IBM(t)·v
	}
	var slots []slot
	for _, v := range verts {
		p := mm.Positions[v]
		pv := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		slots = slots[:0]
		for k, j := range mm.Joints[v] {
			w := float64(mm.Weights[v][k])
			if w <= 0 {
				continue
			}
			t := target(int(j))
			if t == int(j) {
				continue // the same term on both sides
			}
			slots = append(slots, slot{w: w, j: int(j), t: t, full: e.m.InverseBind[j].TransformPoint(pv), part: e.m.InverseBind[t].TransformPoint(pv)})
		}
		if len(slots) == 0 {
			continue
		}
		for _, f := range frames {
			var d rig.Vec3
			for _, s := range slots {
				d = d.Add(fr.point(f, s.t, s.part).Sub(fr.point(f, s.j, s.full)).Scale(s.w))
			}
			worst = max(worst, d.Len())
		}
	}
	if math.IsNaN(worst) {
		return math.Inf(1)
	}
	return worst
}

// Reduce brings a rig over the 64 bones a BPAT file holds under it by the
// one rule glTF models bake by (docs/formats/gltf.md §1.4): joints no vertex
// is weighted to dropped, then deforming leaf joints merged, least vertex
// error first, the error measured with job's clips (job is m's job as it
// stands: another source's motions on m's joints, as source/mot makes). It
// changes m's joints; the caller makes its job again from them. It returns
// nil, nil when m fits.
func Reduce(m *gltf.Model, job *bake.Job) (*Reduction, error) {
	if len(m.Joints) <= bpat.MaxBones {
		return nil, nil
	}
	return reduce(m, &Manifest{}, job, bpat.MaxBones, fmt.Sprintf("the %d bones a BPAT file holds", bpat.MaxBones))
}

// Notes says what the reduction did, for the user: the lines bake prints and
// the viewer shows.
func (r *Reduction) Notes() []string {
	if r == nil {
		return nil
	}
	return r.notes()
}

// notes says what the reduction did, for the user.
func (r *Reduction) notes() []string {
	var out []string
	if len(r.Dropped) > 0 {
		out = append(out, fmt.Sprintf("%d joints, more than %s: dropped %s that no vertex is weighted to and no socket, feet or root_bone names (%s); %d left",
			r.Joints, r.limitText, words.Plural(len(r.Dropped), "joint"), strings.Join(r.Dropped, ", "), r.Joints-len(r.Dropped)))
	}
	if len(r.Merged) > 0 {
		ms := make([]string, len(r.Merged))
		for i, mg := range r.Merged {
			ms[i] = mg.Joint + " → " + mg.Into
		}
		what := "vertex"
		if r.ByJoints {
			what = "joint" // no mesh: the joints and their tips (jointPoints)
		}
		out = append(out, fmt.Sprintf("merged %s into their parents to fit %s, least %s error first (%s): worst %s deviation %s over every frame of every clip",
			words.Plural(len(r.Merged), "leaf joint"), r.limitText, what, strings.Join(ms, ", "), what, r.DeviationText()))
	}
	return out
}

// DeviationText is the deviation as the summary prints it, in metres, rounded
// up so that no vertex lies farther than it says.
func (r *Reduction) DeviationText() string {
	if r.Deviation == 0 {
		return "0 m"
	}
	e := math.Pow(10, math.Floor(math.Log10(r.Deviation))-2) // three significant digits
	return fmt.Sprintf("%.3g m", math.Ceil(r.Deviation/e)*e)
}
