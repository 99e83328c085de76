package bat

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

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
