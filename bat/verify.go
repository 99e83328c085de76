package bat

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"bonebake/internal/atomicfile"
	"bonebake/mesh"
	"bonebake/rig"
)

// Write bakes in into dir (created when missing), verifies the files by reading
// them back from disk, and writes the report with the errors found last:
// <name>.bat.json, the three textures, <name>.glb and, for gametools,
// <name>.bat.xml. Each file is written atomically.
func Write(dir string, in *Input, opt Options) (*Output, error) {
	out, err := Bake(in, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range out.Files {
		if err := writeFile(filepath.Join(dir, f.Name), f.Data); err != nil {
			return nil, err
		}
	}
	e, err := Verify(in, out.Report, func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
	if err != nil {
		return nil, fmt.Errorf("bat: verifying %s: %w", dir, err)
	}
	out.Report.MaxError = e
	js := out.Report.JSON()
	out.Files = append([]File{{in.Name + ".bat.json", js}}, out.Files...)
	return out, writeFile(filepath.Join(dir, in.Name+".bat.json"), js)
}

func writeFile(path string, b []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// decodeTexture reads a texture file of the given encoding into stored values c.
func decodeTexture(name string, b []byte, encoding string, channels int) (*Texture, error) {
	switch encoding {
	case Unorm16:
		return decodePNG(name, b, channels, 16)
	case Unorm8:
		return decodePNG(name, b, channels, 8)
	case Float32, Float16:
		return decodeEXR(name, b, channels)
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
	posTex, err := read(r.Position.File, r.Position.Encoding, 3, r.Position.Width, r.Position.Height)
	if err != nil {
		return e, err
	}
	rotTex, err := read(r.Rotation.File, r.Rotation.Encoding, 4, r.Rotation.Width, r.Rotation.Height)
	if err != nil {
		return e, err
	}
	skinTex, err := read(r.Skin.File, r.Skin.Encoding, 4, r.Skin.Width, r.Skin.Height)
	if err != nil {
		return e, err
	}
	glb, err := open(r.Mesh)
	if err != nil {
		return e, err
	}
	vpos, uv1, err := readMeshGLB(r.Mesh, glb)
	if err != nil {
		return e, err
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
	ref := normalized(in.Mesh)
	first := map[string]int{}
	f0 := 0
	for _, c := range in.Clips {
		first[c.Name] = f0
		f0 += c.Frames
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
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			skin := make([]float32, in.Bones*16)
			want := make([][3]float32, nv)
			affine := make([]rig.Mat4, nb)
			e := &worst[w]
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
							got = got.Add(affine[infl[k].b[i]].TransformPoint(v).Scale(w))
						}
					}
					wv := sp.point(rig.Vec3{float64(want[k][0]), float64(want[k][1]), float64(want[k][2])})
					e.Vertex = max(e.Vertex, got.Sub(wv).Len()/sp.s)
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

// normalized returns m with every vertex's weights scaled to sum to 1, as glTF
// requires and as the skin texture stores them (§5): the reference skinning for
// a source whose weights do not (CesiumMan has some).
func normalized(m *mesh.Skinned) *mesh.Skinned {
	c := *m
	c.Weights = make([][4]float32, len(m.Weights))
	for v, w := range m.Weights {
		s := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
		for k := range w {
			if s > 0 {
				c.Weights[v][k] = float32(float64(w[k]) / s)
			}
		}
	}
	return &c
}

// decodeRotation turns a decoded rotation texel into a quaternion.
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
	return space{zUp: r.Up == "z", s: 1}
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
			idx := math.Round(float64(t.Data[(y*t.Width+x)*4+i]) * r.Skin.IndexScale)
			if !(idx >= 0 && idx < float64(r.Bones)) {
				return nil, fmt.Errorf("%s: vertex %d influence %d: bone %v of %d", r.Skin.File, k, i, idx, r.Bones)
			}
			out[k].b[i] = int(idx)
			out[k].w[i] = float64(t.Data[(wy*t.Width+x)*4+i])
		}
	}
	return out, nil
}
