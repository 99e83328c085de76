package bat

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"

	"github.com/x448/float16"

	"github.com/bonebake/bonebake/formats/exr"
)

// Write bakes in into dir (created when missing), verifies the result and writes
// the report with the errors found last: <name>.bat.json, the three textures,
// <name>.glb and, for gametools, <name>.bat.xml. Each file is written atomically.
// Verification rebuilds every vertex of every frame on every core from the values
// the written files hold, taken from memory bit for bit as the files decode
// (storedValues; TestStoredValuesAreTheFiles proves it for every encoding), while
// the files are written: nothing is read back.
//
// The files are a set (atomicfile.Set): each is written beside its target while
// the verification runs and none takes its name until all are written and the
// verification passed, the report last; then they take their names together. A
// failed verification, an error or an interruption leaves the previous set as
// it was and nothing else.
func Write(dir string, in *Input, opt Options) (*Output, error) {
	out, err := Bake(in, opt)
	if err != nil {
		return nil, err
	}
	if work := int64(out.Report.Rows) * int64(out.Report.Vertices); work > maxVerifyWork && !opt.NoLimit {
		return nil, fmt.Errorf("bat: %s: verifying rebuilds %d rows × %d vertices, more than the %d vertex-rows allowed (about 20 s): lower the fps or bake fewer clips, or lift the limit (bat --force)",
			in.Name, out.Report.Rows, out.Report.Vertices, maxVerifyWork)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	set := atomicfile.NewSet()
	defer set.Discard()
	written := make(chan error, 1)
	go func() { written <- writeSet(set, dir, out.Files) }()
	src, verr := out.storedValues()
	var e MaxError
	if verr == nil {
		e, verr = verify(in, out.Report, src, opt.Progress)
	}
	if err := <-written; err != nil {
		return nil, err
	}
	if verr != nil {
		return nil, fmt.Errorf("bat: verifying %s: %w", dir, verr)
	}
	out.Report.MaxError = e
	if opt.Accept != nil {
		if err := opt.Accept(out.Report); err != nil {
			return nil, err
		}
	}
	js := out.Report.JSON()
	report := File{in.Name + ".bat.json", js}
	if err := writeSet(set, dir, []File{report}); err != nil {
		return nil, err
	}
	out.Files = append([]File{report}, out.Files...)
	stale := staleFiles(dir, in.Name, out.Files)
	if err := set.Commit(); err != nil {
		return nil, err
	}
	// After the commit: a failed bake leaves the old set whole; a removal that
	// fails leaves a file the new report does not name, as before.
	for _, p := range stale {
		if err := os.Remove(p); err == nil {
			out.Removed = append(out.Removed, p)
		}
	}
	return out, nil
}

// staleFiles lists the files the set already in dir under name (its
// <name>.bat.json report names them) holds that files does not replace: another
// preset's or format's textures (<name>.position.exr beside the new .png), or
// the gametools XML. Only files that report names, of this name, are listed.
func staleFiles(dir, name string, files []File) []string {
	b, err := os.ReadFile(filepath.Join(dir, name+".bat.json"))
	if err != nil {
		return nil
	}
	var old struct {
		GameTools          *struct{} `json:"gametools"`
		Position, Rotation struct{ File string }
		Skin               struct{ File string }
		Mesh               string
	}
	if json.Unmarshal(b, &old) != nil {
		return nil
	}
	names := []string{old.Position.File, old.Rotation.File, old.Skin.File, old.Mesh}
	if old.GameTools != nil {
		names = append(names, name+".bat.xml")
	}
	var out []string
	for _, n := range names {
		if n == "" || filepath.Base(n) != n || !strings.HasPrefix(n, name+".") ||
			slices.ContainsFunc(files, func(f File) bool { return f.Name == n }) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(dir, n)); err == nil && st.Mode().IsRegular() {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// maxVerifyWork is MaxVerifyWork; tests lower it.
var maxVerifyWork int64 = MaxVerifyWork

// writeSet writes files into dir as part of set.
func writeSet(set *atomicfile.Set, dir string, files []File) error {
	for _, f := range files {
		if err := set.Write(filepath.Join(dir, f.Name), func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// verifySource is what verification reads: the three textures as their files
// decode, and the mesh's positions and TEXCOORD_1.
type verifySource struct {
	pos, rot, skin *Texture
	vpos           [][3]float32
	uv1            [][2]float32
}

// storedValues returns what o's files hold, without reading them from disk: each
// texture's values as decodeTexture reads them from the file (the float32 values;
// float16 and unorm codes turned back into float32 as the decoders do), and the
// mesh's positions and TEXCOORD_1 read from the mesh file's bytes in memory (the
// mesh is posed at the reference row, whatever the preset).
func (o *Output) storedValues() (verifySource, error) {
	r := o.Report
	src := verifySource{
		pos:  storedTexture(o.textures[0], r.Position.Encoding),
		rot:  storedTexture(o.textures[1], r.Rotation.Encoding),
		skin: storedTexture(o.textures[2], r.Skin.Encoding),
	}
	var err error
	src.vpos, src.uv1, err = readMeshGLB(r.Mesh, o.File(r.Mesh))
	return src, err
}

// storedTexture returns t as a file of the encoding stores it, bit for bit what
// decodeTexture reads back: float32 as it is, float16 rounded to half and back
// (exr.Decode), unorm codes (quantize) scaled as decodePNG scales them.
func storedTexture(t *Texture, encoding string) *Texture {
	if encoding == Float32 {
		return t
	}
	s := newTexture(t.Width, t.Height, t.Channels)
	switch encoding {
	case Float16:
		for i, v := range t.Data {
			s.Data[i] = float16.Frombits(float16.Fromfloat32(v).Bits()).Float32()
		}
	case Unorm16:
		scale := float32(1) / 65535
		for i, v := range t.Data {
			s.Data[i] = float32(quantize(v, 65535)) * scale
		}
	case Unorm8:
		for i, v := range t.Data {
			s.Data[i] = float32(quantize(v, 255)) / 255
		}
	}
	return s
}

// decodeTexture reads a texture file of the given encoding into stored values c.
func decodeTexture(name string, b []byte, encoding string, channels int) (*Texture, error) {
	switch encoding {
	case Unorm16:
		return decodePNG(name, b, channels, 16)
	case Unorm8:
		return decodePNG(name, b, channels, 8)
	case Float32, Float16:
		img, err := exr.Decode(name, b, channels)
		return (*Texture)(img), err
	}
	return nil, fmt.Errorf("%s: unknown encoding %q", name, encoding)
}

// Verify rebuilds every vertex of every frame of r's clips from the files that
// open returns, decoded as r says (§3–§5), and returns the largest errors against
// linear blend skinning of in's palettes (in the output's axes). It fails when a
// file is missing, malformed or does not match the report.
func Verify(in *Input, r *Report, open func(name string) ([]byte, error)) (MaxError, error) {
	var e MaxError
	read := func(name, encoding string, channels, w, h int) (*Texture, error) {
		b, err := open(name)
		if err != nil {
			return nil, err
		}
		t, err := decodeTexture(name, b, encoding, channels)
		if err != nil {
			return nil, err
		}
		if t.Width != w || t.Height != h {
			return nil, fmt.Errorf("%s: %d × %d texels, the report says %d × %d", name, t.Width, t.Height, w, h)
		}
		return t, nil
	}
	var (
		src verifySource
		err error
	)
	if src.pos, err = read(r.Position.File, r.Position.Encoding, 3, r.Position.Width, r.Position.Height); err != nil {
		return e, err
	}
	if src.rot, err = read(r.Rotation.File, r.Rotation.Encoding, 4, r.Rotation.Width, r.Rotation.Height); err != nil {
		return e, err
	}
	if src.skin, err = read(r.Skin.File, r.Skin.Encoding, 4, r.Skin.Width, r.Skin.Height); err != nil {
		return e, err
	}
	glb, err := open(r.Mesh)
	if err != nil {
		return e, err
	}
	if src.vpos, src.uv1, err = readMeshGLB(r.Mesh, glb); err != nil {
		return e, err
	}
	return verify(in, r, src, nil)
}

// verify is Verify from what the files hold, decoded: every texel a shader
// reads is checked (checkTexels, readSkin) before the rebuild.
func verify(in *Input, r *Report, src verifySource, progress func(done, total int)) (MaxError, error) {
	if err := checkTexels(r, src.pos, src.rot); err != nil {
		return MaxError{}, err
	}
	return rebuild(in, r, src, progress)
}

// rebuild rebuilds every vertex of every frame from src and returns the
// largest errors.
func rebuild(in *Input, r *Report, src verifySource, progress func(done, total int)) (MaxError, error) {
	var e MaxError
	posTex, rotTex, skinTex, vpos, uv1 := src.pos, src.rot, src.skin, src.vpos, src.uv1
	if posTex.Width != r.Position.Width || posTex.Height != r.Position.Height || rotTex.Width != r.Rotation.Width || rotTex.Height != r.Rotation.Height {
		return e, fmt.Errorf("%s, %s: %d × %d and %d × %d texels, the report says %d × %d and %d × %d", r.Position.File, r.Rotation.File,
			posTex.Width, posTex.Height, rotTex.Width, rotTex.Height, r.Position.Width, r.Position.Height, r.Rotation.Width, r.Rotation.Height)
	}
	nv := in.Mesh.VertexCount()
	cols := r.Columns
	if cols == nil {
		for j := range in.Bones {
			cols = append(cols, j)
		}
	}
	if len(vpos) != nv || r.Vertices != nv || r.Bones != len(cols) {
		return e, fmt.Errorf("%s: %d vertices, the report %d vertices and %d bones, the source %d vertices and %d columns", r.Mesh, len(vpos), r.Vertices, r.Bones, nv, len(cols))
	}
	for _, j := range cols {
		if j < 0 || j >= in.Bones {
			return e, fmt.Errorf("report column of joint %d: the source has %d", j, in.Bones)
		}
	}
	sp := reportSpace(r)
	infl, err := readSkin(r, skinTex, uv1)
	if err != nil {
		return e, err
	}
	g, err := newGrid(r.Rows, r.Bones, r.InvertV)
	if err != nil || g.w != posTex.Width || g.h != posTex.Height || g.stacked != r.Stacked {
		return e, fmt.Errorf("%s: %d × %d texels do not hold %d rows of %d bones (stacked %v)", r.Position.File, posTex.Width, posTex.Height, r.Rows, r.Bones, r.Stacked)
	}
	decode := func(t *Texture, ti TextureInfo, row, b int) [4]float64 {
		var v [4]float64
		at := g.texel(row, b) * t.Channels
		for c := range t.Channels {
			v[c] = float64(t.Data[at+c])*ti.Range[c] + ti.Offset[c]
		}
		return v
	}
	nb := r.Bones
	pref := make([]rig.Vec3, nb)
	for b := range nb {
		v := decode(posTex, r.Position, 0, b)
		pref[b] = rig.Vec3{v[0], v[1], v[2]}
	}

	// The written mesh in the texture space: a gametools mesh is a glTF file in
	// glTF's axes and metres, as an importer (Blender's) reads it; raw and ue
	// meshes are written in the textures' axes.
	mpos := make([]rig.Vec3, nv)
	for k, p := range vpos {
		mpos[k] = rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		if sp.gt {
			mpos[k] = sp.point(mpos[k])
		} else { // in the textures' axes, in metres
			mpos[k] = mpos[k].Scale(sp.s)
		}
	}
	ref, _ := normalized(in.Mesh)
	verts := verifyVertices(ref, mpos, infl)
	first := map[string]int{}
	f0 := 0
	for _, c := range in.Clips {
		first[c.Name] = f0
		f0 += c.FrameCount
	}
	type job struct{ frame, row int }
	var jobs []job
	for _, rc := range r.Clips {
		start, ok := first[rc.Name]
		if !ok || rc.FirstRow < 1 || rc.FirstRow+rc.Frames > r.Rows {
			return e, fmt.Errorf("report clip %q (rows %d to %d) is not in the source or outside the %d rows", rc.Name, rc.FirstRow, rc.FirstRow+rc.Frames-1, r.Rows)
		}
		for f := range rc.Frames {
			jobs = append(jobs, job{start + f, rc.FirstRow + f})
		}
	}
	// Frames are independent: each worker takes every n-th one with its own
	// buffers, and the worst errors are merged at the end.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(jobs)))
	worst := make([]MaxError, workers)
	var done atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			skin := make([]float32, in.Bones*16)
			skin64 := make([][12]float64, in.Bones)
			affine := make([][12]float64, nb)
			// The worst errors stay in this goroutine's locals until the end:
			// updating worst[w] per vertex made the workers write one cache line.
			// Vertices keep the largest squared distance: the square root and
			// the division by the scale are monotonic, so taking them once at
			// the end gives the largest distance bit for bit.
			var e MaxError
			var d2 float64
			defer func() {
				e.Vertex = max(e.Vertex, math.Sqrt(d2)/sp.s)
				worst[w] = e
			}()
			for i := w; i < len(jobs); i += workers {
				palette := in.Palettes[jobs[i].frame*in.Bones*16 : (jobs[i].frame+1)*in.Bones*16]
				row := jobs[i].row
				for b, j := range cols {
					dp := decode(posTex, r.Position, row, b)
					p := pref[b].Add(rig.Vec3{dp[0], dp[1], dp[2]})
					wantP := sp.point(rig.Vec3{float64(palette[j*16+3]), float64(palette[j*16+7]), float64(palette[j*16+11])})
					e.Position = max(e.Position, p.Sub(wantP).Len()/sp.s)
					q := decodeRotation(r.Rotation, decode(rotTex, r.Rotation, row, b))
					// R·(v − p_ref) + p_ref + Δp = R·v + (p − R·p_ref)
					m := q.Matrix()
					t := p.Sub(q.Rotate(pref[b]))
					m[3], m[7], m[11] = t[0], t[1], t[2]
					affine[b] = [12]float64(m[:12])
				}
				// The inputs were checked by Bake: this cannot fail.
				mesh.SkinMatrices(skin, palette, in.InverseBind)
				for j := range skin64 {
					for k := range 12 {
						skin64[j][k] = float64(skin[j*16+k])
					}
				}
				d2 = max(d2, verifyFrame(verts, skin64, affine, sp))
				if progress != nil {
					progress(int(done.Add(1)), len(jobs))
				}
			}
		}()
	}
	wg.Wait()
	for _, w := range worst {
		e.Position, e.Vertex = max(e.Position, w.Position), max(e.Vertex, w.Vertex)
		if math.IsNaN(w.Position) || math.IsNaN(w.Vertex) {
			e.Vertex = math.NaN()
		}
	}
	if math.IsNaN(e.Position) || math.IsNaN(e.Vertex) {
		return e, fmt.Errorf("the rebuild produced NaN")
	}
	return e, nil
}

// verifyVertex is one vertex as verification reads it: its bind position and
// weighted influences in the reference mesh, and its position in the written
// mesh (in the texture space) with the influences its skin texel holds. Both
// skinnings skip influences of weight 0, so they are dropped here, the others
// kept in their order: the sums run as before, bit for bit.
type verifyVertex struct {
	bind, at   [3]float64
	nRef, nGot int
	refJ, gotB [4]int
	refW, gotW [4]float64
}

// verifyVertices returns the vertices verification rebuilds, each distinct one
// once: a vertex equal bit for bit to another (a glTF vertex split at a seam
// for its UVs or normals) has the same errors in every frame.
func verifyVertices(ref *mesh.Skinned, mpos []rig.Vec3, infl []influences) []verifyVertex {
	out := make([]verifyVertex, 0, len(mpos))
	seen := make(map[[24]uint64]bool, len(mpos))
	for k := range mpos {
		var v verifyVertex
		for i := range 3 {
			v.bind[i] = float64(ref.Positions[k][i])
			v.at[i] = mpos[k][i]
		}
		for i := range 4 {
			if w := float64(ref.Weights[k][i]); w != 0 {
				v.refJ[v.nRef], v.refW[v.nRef] = int(ref.Joints[k][i]), w
				v.nRef++
			}
			if w := infl[k].w[i]; w != 0 {
				v.gotB[v.nGot], v.gotW[v.nGot] = infl[k].b[i], w
				v.nGot++
			}
		}
		var key [24]uint64
		for i := range 3 {
			key[i], key[3+i] = math.Float64bits(v.bind[i]), math.Float64bits(v.at[i])
		}
		for i := range 4 {
			key[6+i], key[10+i] = uint64(v.refJ[i]), uint64(v.gotB[i])
			key[14+i], key[18+i] = math.Float64bits(v.refW[i]), math.Float64bits(v.gotW[i])
		}
		key[22], key[23] = uint64(v.nRef), uint64(v.nGot)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, v)
	}
	return out
}

// verifyFrame returns the largest squared distance between each vertex rebuilt
// from its texels (affine, per column: Mat4.TransformPoint's arithmetic) and the
// reference: linear blend skinning by the skinning matrices skin64 (mesh.Skin's
// arithmetic, rounded to float32 as it stores positions) mapped into the
// texture space.
func verifyFrame(vs []verifyVertex, skin64, affine [][12]float64, sp space) float64 {
	identity := !sp.gt && !sp.zUp && sp.s == 1
	var worst float64
	for i := range vs {
		v := &vs[i]
		var b [12]float64
		for k := range v.nRef {
			w, s := v.refW[k], &skin64[v.refJ[k]]
			for i := range b {
				b[i] += w * s[i]
			}
		}
		x, y, z := v.bind[0], v.bind[1], v.bind[2]
		want := rig.Vec3{
			float64(float32(b[0]*x + b[1]*y + b[2]*z + b[3])),
			float64(float32(b[4]*x + b[5]*y + b[6]*z + b[7])),
			float64(float32(b[8]*x + b[9]*y + b[10]*z + b[11])),
		}
		if !identity {
			want = sp.point(want)
		}
		var g0, g1, g2 float64
		u0, u1, u2 := v.at[0], v.at[1], v.at[2]
		for k := range v.nGot {
			a, w := &affine[v.gotB[k]], v.gotW[k]
			g0 += (a[0]*u0 + a[1]*u1 + a[2]*u2 + a[3]) * w
			g1 += (a[4]*u0 + a[5]*u1 + a[6]*u2 + a[7]) * w
			g2 += (a[8]*u0 + a[9]*u1 + a[10]*u2 + a[11]) * w
		}
		d0, d1, d2 := g0-want[0], g1-want[1], g2-want[2]
		worst = max(worst, d0*d0+d1*d1+d2*d2)
	}
	return worst
}

// normalized returns a copy of m with its weights normalized by the one rule
// every source's are (mesh.NormalizeWeights, glTF's: docs/formats/gltf.md
// §1.3), as the skin texture stores them (§5): the reference skinning, and how
// many vertices the rule changed.
func normalized(m *mesh.Skinned) (*mesh.Skinned, int) {
	c := *m
	c.Joints, c.Weights = slices.Clone(m.Joints), slices.Clone(m.Weights)
	n := mesh.NormalizeWeights(c.Joints, c.Weights, 0)
	return &c, n
}

// normalizedWeights returns in with its mesh's weights normalized (normalized)
// and how many vertices that changed; in itself when none. Sources normalize
// at load (gltf.Load), so only a mesh handed in otherwise is changed here.
func (in *Input) normalizedWeights() (*Input, int) {
	m, n := normalized(in.Mesh)
	if n == 0 {
		return in, 0
	}
	c := *in
	c.Mesh = m
	return &c, n
}

// Texel rules: what a texel the verification refuses broke.
const (
	RuleTexelFloat     = "texel-float"     // a stored value is NaN or infinite
	RuleRotationLength = "rotation-length" // a quaternion or axis is not unit length within the encoding's precision
	RuleSkinIndex      = "skin-index"      // a skin texel's bone index is not a column
)

// TexelError is a texel a shader would read garbage from: the texture, the
// texel (x = column, y = row of the image as stored), the rule and the value.
type TexelError struct {
	File   string
	X, Y   int
	Rule   string
	Detail string // what holds the texel (layout row and column, or vertex) and its values
}

func (e *TexelError) Error() string {
	return fmt.Sprintf("%s: texel (x %d, y %d): %s: %s", e.File, e.X, e.Y, e.Rule, e.Detail)
}

// checkTexels refuses a position or rotation texel of the table (every row,
// padding included, every column) that a shader cannot use: a value that
// decodes to NaN or ±Inf, or a rotation whose quaternion (or axis-angle axis)
// is not unit length within rotationTolerance. Normalizing such a texel, as
// decodeRotation does, would turn NaN or zero into the identity and 0.5 into a
// rotation a shader that does not normalize never draws. A table that does not
// fit its textures is left to rebuild, which says so.
func checkTexels(r *Report, pos, rot *Texture) error {
	g, err := newGrid(r.Rows, r.Bones, r.InvertV)
	if err != nil || g.w != pos.Width || g.h != pos.Height || g.w != rot.Width || g.h != rot.Height ||
		pos.Channels != 3 || rot.Channels != 4 || len(r.Position.Range) < 3 || len(r.Rotation.Range) < 4 ||
		len(r.Position.Offset) < 3 || len(r.Rotation.Offset) < 4 {
		return nil
	}
	tol := rotationTolerance(r.Rotation)
	n := 4
	if r.Rotation.Mode == AxisAngle {
		n = 3
	}
	for row := range r.Rows {
		for b := range r.Bones {
			at := g.texel(row, b)
			where := func(f string, t *Texture, ti TextureInfo, rule, what, why string) error {
				v := make([]float64, t.Channels)
				for c := range v {
					v[c] = float64(t.Data[at*t.Channels+c])*ti.Range[c] + ti.Offset[c]
				}
				return &TexelError{File: f, X: at % g.w, Y: at / g.w, Rule: rule,
					Detail: fmt.Sprintf("row %d column %d: %s %v (stored %v) %s", row, b, what, v, t.Data[at*t.Channels:(at+1)*t.Channels], why)}
			}
			for c := range 3 {
				v := float64(pos.Data[at*3+c])*r.Position.Range[c] + r.Position.Offset[c]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return where(r.Position.File, pos, r.Position, RuleTexelFloat, "position", "is not finite")
				}
			}
			var l2 float64
			for c := range 4 {
				v := float64(rot.Data[at*4+c])*r.Rotation.Range[c] + r.Rotation.Offset[c]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return where(r.Rotation.File, rot, r.Rotation, RuleTexelFloat, "rotation", "is not finite")
				}
				if c < n {
					l2 += v * v
				}
			}
			if l := math.Sqrt(l2); !(math.Abs(l-1) <= tol) {
				what := "quaternion"
				if n == 3 {
					what = "axis-angle (the axis)"
				}
				return where(r.Rotation.File, rot, r.Rotation, RuleRotationLength, what,
					fmt.Sprintf("has length %.6g, not 1 within %.3g (%s)", l, tol, r.Rotation.Encoding))
			}
		}
	}
	return nil
}

// rotationTolerance is how far from 1 the length of a unit quaternion (or
// axis) can be once stored in ti's encoding and decoded (§4): each channel's
// value c·range + offset is off by at most range·δ, δ being half a unorm step
// (1/(2·65535), 1/(2·255)) or a half-ulp of a float32 or float16 of |c| ≤ 1
// (2⁻²⁴, 2⁻¹¹), so the length is off by at most √Σ(range·δ)². Twice that
// leaves room for the rounding of the bake's own arithmetic; unorm8 with
// range 2 allows 0.014 for an axis, float32 2.4e-7 for a quaternion. NaN,
// zero or a length of 0.5 are far outside any of them.
func rotationTolerance(ti TextureInfo) float64 {
	var d float64
	switch ti.Encoding {
	case Unorm8:
		d = 1.0 / (2 * 255)
	case Unorm16:
		d = 1.0 / (2 * 65535)
	case Float16:
		d = 0x1p-11
	default:
		d = 0x1p-24
	}
	n := 4
	if ti.Mode == AxisAngle {
		n = 3
	}
	var s float64
	for c := range n {
		s += (ti.Range[c] * d) * (ti.Range[c] * d)
	}
	return 2 * math.Sqrt(s)
}

// decodeRotation turns a decoded rotation texel into a quaternion (checkTexels
// has refused one that is not unit length).
func decodeRotation(ti TextureInfo, v [4]float64) rig.Quat {
	if ti.Mode == AxisAngle {
		return rig.QuatFromAxisAngle(rig.Vec3{v[0], v[1], v[2]}.Normalize(), v[3]/angleScale(ti.AngleUnit))
	}
	return rig.Quat(v).Normalize()
}

// reportSpace is the texture space a report describes (§7).
func reportSpace(r *Report) space {
	if g := r.GameTools; g != nil {
		d := AddonSettings{UnitScale: g.UnitScale, InvertX: g.Invert[0], InvertY: g.Invert[1], InvertZ: g.Invert[2]}
		return newSpace(Options{Preset: GameTools, GameTools: &d})
	}
	return space{zUp: r.Up == "z", s: unitScale(r.Units == UnitsCM)}
}

// influences are one vertex's decoded bones and weights.
type influences struct {
	b [4]int
	w [4]float64
}

// readSkin decodes each vertex's influences from the skin texel its TEXCOORD_1
// points at (§5).
func readSkin(r *Report, t *Texture, uv1 [][2]float32) ([]influences, error) {
	out := make([]influences, len(uv1))
	for k, uv := range uv1 {
		x := int(math.Floor(float64(uv[0]) * float64(t.Width)))
		y := int(math.Floor(float64(uv[1]) * float64(t.Height)))
		layout, wy := y, y+1
		if r.InvertV {
			layout, wy = t.Height-1-y, y-1
		}
		if x < 0 || x >= t.Width || layout < 0 || layout%2 != 0 || wy < 0 || wy >= t.Height {
			return nil, fmt.Errorf("%s: vertex %d's TEXCOORD_1 (%v, %v) is not on an index texel of the %d × %d skin texture", r.Mesh, k, uv[0], uv[1], t.Width, t.Height)
		}
		for i := range 4 {
			c := t.Data[(y*t.Width+x)*4+i]
			idx := math.Round(float64(c) * r.Skin.IndexScale)
			if !(idx >= 0 && idx < float64(r.Bones)) {
				rule := RuleSkinIndex
				if math.IsNaN(idx) || math.IsInf(idx, 0) {
					rule = RuleTexelFloat
				}
				return nil, &TexelError{File: r.Skin.File, X: x, Y: y, Rule: rule,
					Detail: fmt.Sprintf("vertex %d influence %d: bone %v (stored %v) of %d", k, i, idx, c, r.Bones)}
			}
			out[k].b[i] = int(idx)
			w := t.Data[(wy*t.Width+x)*4+i]
			if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
				return nil, &TexelError{File: r.Skin.File, X: x, Y: wy, Rule: RuleTexelFloat,
					Detail: fmt.Sprintf("vertex %d influence %d: weight %v", k, i, w)}
			}
			out[k].w[i] = float64(w)
		}
	}
	return out, nil
}
