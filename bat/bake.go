package bat

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/exr"
)

// File is one file of a bake: its name (no folder) and bytes.
type File struct {
	Name string
	Data []byte
}

// Output is a bake in memory: the report and the files it names (textures, mesh,
// and for the gametools preset the XML report). Report.MaxError is zero until
// the files are verified (Verify, or Write which does both).
type Output struct {
	Report *Report
	Files  []File
	// Removed are the files of the set baked before into the same folder under
	// the same name (by another preset or format) that this one does not
	// replace: Write removes them once its own set is in place.
	Removed []string
	// textures are the position, rotation and skin textures before encoding:
	// Write verifies from them (storedValues) instead of reading the files back.
	textures [3]*Texture
}

// File returns the bytes of the file named name, or nil.
func (o *Output) File(name string) []byte {
	for _, f := range o.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// stack lists, for each row of the bone textures, the palette frame it holds (−1
// for the reference row), and each clip's first row (§2; padding per Options).
func stack(in *Input, padding int) (src []int, first []int) {
	src = []int{-1}
	f0 := 0
	for _, c := range in.Clips {
		for p := padding; p > 0; p-- { // before: the wrap-around, or the first frame held
			src = append(src, f0+wrap(-p, c))
		}
		first = append(first, len(src))
		for f := range c.FrameCount {
			src = append(src, f0+f)
		}
		for p := range padding { // after: the wrap-around, or the last frame held
			src = append(src, f0+wrap(c.FrameCount+p, c))
		}
		f0 += c.FrameCount
	}
	return src, first
}

// wrap maps a frame index outside [0, frames) into the clip: around for a looping
// clip, clamped for a one-shot.
func wrap(f int, c bpat.Clip) int {
	if c.Loops {
		return ((f % c.FrameCount) + c.FrameCount) % c.FrameCount
	}
	return min(max(f, 0), c.FrameCount-1)
}

// Bake makes the textures, mesh and report of in, in memory. It does not verify
// them: Write does, from the files on disk, and Verify does for any file source.
func Bake(in *Input, opt Options) (*Output, error) {
	if err := opt.Resolve(); err != nil {
		return nil, fmt.Errorf("bat: %w", err)
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	in, err := in.selectClips(opt.Clips)
	if err != nil {
		return nil, err
	}
	in, renormalized := in.normalizedWeights()
	posEnc, rotEnc, skinEnc := opt.encodings()
	if skinEnc == Unorm8 && in.Bones > 256 {
		return nil, fmt.Errorf("bat: %s: %d bones: an 8-bit skin texture indexes at most 256; use png16", in.Name, in.Bones)
	}
	if skinEnc == Float16 && in.Bones > 2049 {
		return nil, fmt.Errorf("bat: %s: %d bones: half floats hold bone indices up to 2048 exactly; use exr", in.Name, in.Bones)
	}
	sp := newSpace(opt)
	gt := opt.GameTools
	src, first, ref := []int(nil), []int(nil), -1
	if opt.Preset == GameTools {
		src, first, ref = addonStack(in, gt, opt.Padding)
	} else {
		src, first = stack(in, opt.Padding)
	}
	cols, colOf := columns(in, opt.Preset == GameTools && !gt.AllJoints)
	rows := len(src)
	nb := len(cols)
	g, err := newGrid(rows, nb, opt.InvertV)
	if err != nil {
		return nil, fmt.Errorf("bat: %s: %w", in.Name, err)
	}

	// The bones at every row, in float64 (§2): row 0 the reference pose, the
	// bind pose or a frame of the stack; each later row relative to it.
	refBones := make([]bone, nb)
	for b, j := range cols {
		if ref >= 0 {
			refBones[b] = rigid(paletteMatrix(in.Palettes[ref*in.Bones*16:], j), sp)
			continue
		}
		m, ok := in.InverseBind[j].Inverse()
		if !ok {
			return nil, fmt.Errorf("bat: %s: bone %d's inverse bind matrix cannot be inverted", in.Name, j)
		}
		refBones[b] = rigid(m, sp)
	}

	mode, angle := Quaternion, 1.0
	switch {
	case opt.Preset == GameTools:
		mode, angle = gt.Rotation, angleScale(gt.AngleUnit)
	case opt.Preset != Raw:
		mode = AxisAngle
	}
	pos := make([]float64, rows*nb*3)
	rot := make([]float64, rows*nb*4)
	put := func(i int, bo bone) {
		pos[i*3], pos[i*3+1], pos[i*3+2] = bo.p[0], bo.p[1], bo.p[2]
		if mode == Quaternion {
			rot[i*4], rot[i*4+1], rot[i*4+2], rot[i*4+3] = bo.q[0], bo.q[1], bo.q[2], bo.q[3]
		} else {
			axis, a := axisAngle(bo.q)
			rot[i*4], rot[i*4+1], rot[i*4+2], rot[i*4+3] = axis[0], axis[1], axis[2], a*angle
		}
	}
	for b, bo := range refBones {
		put(b, bo)
	}
	// Rows are independent, so they are shared among the cores.
	inParallel(rows-1, func(lo, hi int) {
		for r := 1 + lo; r < 1+hi; r++ {
			frame := in.Palettes[src[r]*in.Bones*16 : (src[r]+1)*in.Bones*16]
			for b, j := range cols {
				ref := refBones[b]
				cur := rigid(paletteMatrix(frame, j), sp)
				put(r*nb+b, bone{cur.p.Sub(ref.p), canonical(cur.q.Mul(ref.q.Conjugate()).Normalize())})
			}
		}
	})
	remapped := opt.Preset == UE || (opt.Preset == GameTools && gt.Remap)
	posMap, rotMap := remap(remapped, 3, pos), remap(remapped, 4, rot)
	if opt.Preset == UE {
		rotMap = channelMap{offset: []float64{-1, -1, -1, 0}, rng: []float64{2, 2, 2, 2 * math.Pi}}
	}
	posTex, rotTex := newTexture(g.w, g.h, 3), newTexture(g.w, g.h, 4)
	inParallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for b := range nb {
				i, t := r*nb+b, g.texel(r, b)
				posMap.store(posTex.Data[t*3:t*3+3], pos[i*3:i*3+3])
				rotMap.store(rotTex.Data[t*4:t*4+4], rot[i*4:i*4+4])
			}
		}
	})
	skinTex, indexScale, err := skinTexture(in, colOf, skinEnc, opt.InvertV)
	if err != nil {
		return nil, err
	}

	rep := &Report{
		Preset: string(opt.Preset), Bones: nb, Vertices: in.Mesh.VertexCount(), Rows: rows,
		Padding: opt.Padding, Stacked: g.stacked, InvertV: opt.InvertV, Up: "y",
		Mesh: in.Name + ".glb", RenormalizedVertices: renormalized, Reference: RefBind, ReferenceFrame: ref,
	}
	if opt.ZUp {
		rep.Up = "z"
	}
	if opt.Preset != GameTools {
		rep.Units = UnitsM
		if opt.Centimetres {
			rep.Units = UnitsCM
		}
	}
	if opt.Preset == GameTools {
		rep.Up, rep.Reference, rep.Columns = "z", gt.Reference, cols
		rep.GameTools = &ReportGameTools{UnitScale: gt.UnitScale, Invert: [3]bool{gt.InvertX, gt.InvertY, gt.InvertZ},
			RefPadding: gt.RefPadding, PaddingMode: gt.PaddingMode, Remap: gt.Remap}
	}
	for i, c := range in.Clips {
		rep.Clips = append(rep.Clips, ReportClip{Name: c.Name, FirstRow: first[i], Frames: c.FrameCount, FPS: float64(c.FPS), Loops: c.Loops})
	}
	ext := ".exr"
	if opt.Format == PNG16 || opt.Format == PNG8 {
		ext = ".png"
	}
	rep.Position = TextureInfo{File: in.Name + ".position" + ext, Offset: posMap.offset, Range: posMap.rng, Encoding: posEnc, Width: g.w, Height: g.h}
	rep.Rotation = TextureInfo{File: in.Name + ".rotation" + ext, Mode: mode, Offset: rotMap.offset, Range: rotMap.rng, Encoding: rotEnc, Width: g.w, Height: g.h}
	if opt.Preset == GameTools && mode == AxisAngle {
		rep.Rotation.AngleUnit = gt.AngleUnit
	}
	rep.Skin = SkinInfo{File: in.Name + ".skin" + ext, Width: skinTex.Width, Height: skinTex.Height, IndexScale: indexScale, Encoding: skinEnc}

	out := &Output{Report: rep, textures: [3]*Texture{posTex, rotTex, skinTex}}
	// The textures are encoded side by side: the large two take about the same time.
	texFiles := []struct {
		t   *Texture
		inf *TextureInfo
	}{{posTex, &rep.Position}, {rotTex, &rep.Rotation}, {skinTex, &TextureInfo{File: rep.Skin.File, Encoding: skinEnc}}}
	encoded := make([][]byte, len(texFiles))
	errs := make([]error, len(texFiles))
	var wg sync.WaitGroup
	for i, f := range texFiles {
		wg.Go(func() { encoded[i], errs[i] = encodeTexture(f.t, f.inf.Encoding, opt.Zip) })
	}
	wg.Wait()
	for i, f := range texFiles {
		if errs[i] != nil {
			return nil, fmt.Errorf("bat: %s: %w", f.inf.File, errs[i])
		}
		out.Files = append(out.Files, File{f.inf.File, encoded[i]})
	}
	glb, err := meshGLB(in, ref, skinTex.Width, skinTex.Height, opt)
	if err != nil {
		return nil, fmt.Errorf("bat: %s: %w", rep.Mesh, err)
	}
	out.Files = append(out.Files, File{rep.Mesh, glb})
	if opt.Preset == GameTools {
		out.Files = append(out.Files, File{in.Name + ".bat.xml", bakedDataXML(in, rep)})
	}
	return out, nil
}

// inParallel calls f on parts [lo, hi) of [0, n), one part a core, and waits.
func inParallel(n int, f func(lo, hi int)) {
	parts := max(1, min(runtime.GOMAXPROCS(0), n/64))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { f(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
}

// encodeTexture writes t in the file format of its encoding.
func encodeTexture(t *Texture, encoding string, zip bool) ([]byte, error) {
	switch encoding {
	case Unorm16:
		return encodePNG(t, 16)
	case Unorm8:
		return encodePNG(t, 8)
	}
	return exr.Encode((*exr.Image)(t), encoding == Float16, zip), nil
}

// channelMap is a texture's per-channel decoding, value = c·range + offset (§4).
type channelMap struct{ offset, rng []float64 }

// remap returns the channel map of values (n per texel): with on, each channel's
// [min, max] maps onto [0, 1]; otherwise values are stored as they are.
func remap(on bool, n int, values []float64) channelMap {
	m := channelMap{offset: make([]float64, n), rng: make([]float64, n)}
	for c := range n {
		m.rng[c] = 1
	}
	if !on {
		return m
	}
	for c := range n {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := c; i < len(values); i += n {
			lo, hi = min(lo, values[i]), max(hi, values[i])
		}
		m.offset[c], m.rng[c] = lo, hi-lo
	}
	return m
}

// angleScale is what an angle in radians is multiplied by for a GameTools angle unit.
func angleScale(unit string) float64 {
	switch unit {
	case AngleTurns:
		return 1 / (2 * math.Pi)
	case AngleDegrees:
		return 180 / math.Pi
	}
	return 1
}

// store writes the stored values c = (value − offset)/range of one texel.
func (m channelMap) store(dst []float32, values []float64) {
	for c, v := range values {
		if m.rng[c] == 0 {
			dst[c] = 0
		} else {
			dst[c] = float32((v - m.offset[c]) / m.rng[c])
		}
	}
}

// skinTexture lays out each vertex's four bones and weights (§5): indices most
// influential first, weights renormalized (for unorm, rounded so that the codes
// sum to the full scale exactly).
func skinTexture(in *Input, colOf []int, encoding string, invertV bool) (t *Texture, scale float64, err error) {
	nv := in.Mesh.VertexCount()
	w := min(nv, maxSide)
	h := 2 * ((nv + w - 1) / w)
	if h > maxSide {
		return nil, 0, fmt.Errorf("bat: %s: %d vertices need a %d × %d skin texture: more than %d rows", in.Name, nv, w, h, maxSide)
	}
	t = newTexture(w, h, 4)
	full := unormMax(encoding)
	scale = 1.0
	if full > 0 {
		scale = float64(full)
	}
	for k := range nv {
		js, ws := in.Mesh.Joints[k], in.Mesh.Weights[k]
		var idx [4]float64
		var wt [4]float64
		sum := 0.0
		for i, o := range influenceOrder(ws) {
			if ws[o] > 0 {
				idx[i], wt[i] = float64(colOf[js[o]]), float64(ws[o])
				sum += wt[i]
			}
		}
		if sum <= 0 {
			return nil, 0, fmt.Errorf("bat: %s: vertex %d has no weight", in.Name, k)
		}
		for i := range wt {
			wt[i] /= sum
		}
		if full > 0 {
			wt = roundWeights(wt, full)
		}
		y := 2 * (k / w)
		yi, yw := y, y+1
		if invertV {
			yi, yw = h-1-y, h-2-y
		}
		x := k % w
		for c := range 4 {
			t.Data[(yi*w+x)*4+c] = float32(idx[c] / scale)
			t.Data[(yw*w+x)*4+c] = float32(wt[c])
		}
	}
	return t, scale, nil
}

// roundWeights rounds weights summing to 1 onto codes of 1/full that sum to full
// exactly (largest remainder first), and returns them as code/full.
func roundWeights(w [4]float64, full int) [4]float64 {
	var code [4]int
	total := 0
	for i, v := range w {
		code[i] = int(math.Floor(v * float64(full)))
		total += code[i]
	}
	order := []int{0, 1, 2, 3}
	rem := func(i int) float64 { return w[i]*float64(full) - float64(code[i]) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rem(b), rem(a)) })
	for _, i := range order[:min(4, max(0, full-total))] {
		code[i]++
	}
	var out [4]float64
	for i, c := range code {
		out[i] = float64(c) / float64(full)
	}
	return out
}

// Rotation modes (§4).
const (
	Quaternion = "quaternion"
	AxisAngle  = "axis_angle"
)
