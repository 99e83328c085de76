package bat

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// verifyBefore is verify as it was before issue 46 made it fast: each frame
// skins the whole reference mesh (mesh.Skin) into a buffer, then rebuilds every
// vertex and takes its distance. The tests hold the fast verify to its results
// bit for bit.
func verifyBefore(in *Input, r *Report, src verifySource, progress func(done, total int)) (MaxError, error) {
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
		}
	}
	ref, _ := normalized(in.Mesh)
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
			want := make([][3]float32, nv)
			affine := make([]rig.Mat4, nb)
			// The worst errors stay in this goroutine's locals until the end:
			// updating worst[w] per vertex made the workers write one cache line.
			var e MaxError
			defer func() { worst[w] = e }()
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
					affine[b] = m
				}
				// The inputs were checked by Bake: these cannot fail.
				mesh.SkinMatrices(skin, palette, in.InverseBind)
				ref.Skin(skin, want, nil)
				for k := range nv {
					var got rig.Vec3
					v := mpos[k]
					for i := range 4 {
						if w := infl[k].w[i]; w != 0 {
							// affine·v, weighted: Mat4.TransformPoint's arithmetic,
							// without copying the matrix.
							a := &affine[infl[k].b[i]]
							got[0] += (a[0]*v[0] + a[1]*v[1] + a[2]*v[2] + a[3]) * w
							got[1] += (a[4]*v[0] + a[5]*v[1] + a[6]*v[2] + a[7]) * w
							got[2] += (a[8]*v[0] + a[9]*v[1] + a[10]*v[2] + a[11]) * w
						}
					}
					wv := sp.point(rig.Vec3{float64(want[k][0]), float64(want[k][1]), float64(want[k][2])})
					e.Vertex = max(e.Vertex, got.Sub(wv).Len()/sp.s)
				}
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

// verifyFixtures are the inputs (small, sparse: zero weights and repeated
// vertices, Fox when the test data is there) and the presets and formats
// TestVerifyAsBefore and TestVerifyRefusesSpoiledTexels bake them with.
func verifyFixtures(t *testing.T) (inputs []struct {
	name string
	in   *Input
}, opts []struct {
	name string
	opt  Options
}) {
	t.Helper()
	small := synthetic(t, 7, 30, 50)
	// Zero weights and repeated vertices: half the vertices on one bone, and
	// every third vertex a copy of the one before.
	sparse := synthetic(t, 9, 40, 90)
	m := *sparse.Mesh
	m.Positions, m.Joints, m.Weights = slices.Clone(m.Positions), slices.Clone(m.Joints), slices.Clone(m.Weights)
	for k := range m.Positions {
		if k%2 == 0 {
			m.Weights[k] = [4]float32{0, 1, 0, 0}
		}
		if k%3 == 2 {
			m.Positions[k], m.Joints[k], m.Weights[k] = m.Positions[k-1], m.Joints[k-1], m.Weights[k-1]
		}
	}
	sparse.Mesh = &m
	inputs = []struct {
		name string
		in   *Input
	}{{"small", small}, {"sparse", sparse}}
	if p, ok := testfiles.Find("gltf", "Fox.glb"); ok {
		md, err := gltfbake.Load(p, gltfbake.Settings{FPS: 10})
		if err != nil {
			t.Fatal(err)
		}
		fox, err := FromModel(md)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, struct {
			name string
			in   *Input
		}{"fox", fox})
	}
	opts = []struct {
		name string
		opt  Options
	}{
		{"raw-exr", Options{}},
		{"raw-exr16-zup", Options{Format: EXR16, ZUp: true}},
		{"gametools-exr", Options{Preset: GameTools}},
		{"gametools-png8-invertv", Options{Preset: GameTools, Format: PNG8, InvertV: true, GameTools: remapped()}},
		{"ue-png16-padding", Options{Preset: UE, Padding: 2}},
		{"ue-png8-zup", Options{Preset: UE, Format: PNG8, ZUp: true}},
	}
	return inputs, opts
}

// TestVerifyAsBefore holds verify's rebuild to verifyBefore bit for bit: every preset,
// format and space (identity, z up, the gametools axes and scale, posed meshes),
// a mesh with zero weights and vertices repeated bit for bit (which verify
// rebuilds once), texels spoiled so the worst vertex is a real error, a NaN
// (which verify itself refuses: checkTexels) and Fox's own mesh when the test
// data is there.
func TestVerifyAsBefore(t *testing.T) {
	inputs, opts := verifyFixtures(t)
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, in := range inputs {
		for _, o := range opts {
			t.Run(in.name+"/"+o.name, func(t *testing.T) {
				out, err := Bake(in.in, o.opt)
				if err != nil {
					t.Fatal(err)
				}
				src, err := out.storedValues()
				if err != nil {
					t.Fatal(err)
				}
				check := func(what string, src verifySource) MaxError {
					t.Helper()
					got, err1 := rebuild(in.in, out.Report, src, nil)
					want, err2 := verifyBefore(in.in, out.Report, src, nil)
					if (err1 == nil) != (err2 == nil) || !same(got.Vertex, want.Vertex) || !same(got.Position, want.Position) {
						t.Fatalf("%s: verify gives %+v (%v), before %+v (%v)", what, got, err1, want, err2)
					}
					return got
				}
				clean := check("as written", src)
				spoiled := src
				spoiled.rot = &Texture{Width: src.rot.Width, Height: src.rot.Height, Channels: src.rot.Channels, Data: slices.Clone(src.rot.Data)}
				for i := 0; i < len(spoiled.rot.Data); i += 5 {
					spoiled.rot.Data[i] += 0.25
				}
				if e := check("rotation texels spoiled", spoiled); !(e.Vertex > clean.Vertex) {
					t.Errorf("spoiled rotation texels give a worst vertex of %g, no more than the clean %g", e.Vertex, clean.Vertex)
				}
				if _, err := verify(in.in, out.Report, spoiled, nil); err == nil {
					t.Error("verify passes rotation texels off unit length by 0.25")
				}
				spoiled.pos = &Texture{Width: src.pos.Width, Height: src.pos.Height, Channels: src.pos.Channels, Data: slices.Clone(src.pos.Data)}
				for i := 0; i < len(spoiled.pos.Data); i += 5 {
					spoiled.pos.Data[i] = float32(math.NaN())
				}
				if e := check("NaN position texels", spoiled); !math.IsNaN(e.Vertex) {
					t.Errorf("NaN position texels give a worst vertex of %g", e.Vertex)
				}
				if _, err := verify(in.in, out.Report, spoiled, nil); err == nil {
					t.Error("verify passes NaN position texels")
				}
			})
		}
	}
}
