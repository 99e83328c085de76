package viewer

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestBrowserCharacters: the viewer draws Xbot, RobotExpressive and CesiumMan
// as the glTF spec (and three.js) puts them: whole, upright, at their size,
// without spikes. One unit, paused at a known frame of a clip, close up; the
// expectation is independent of the viewer and of the loader: every mesh node
// of the file posed by internal/gltfref's float64 evaluation at that frame's
// time (weights divided by their sum, as glTF loaders do), placed by the
// unit's record and projected with the page's own camera matrix, its
// triangles filled. The drawn silhouette (the pixels that change when the
// crowd is hidden) must have the projected one's bounding box within a few
// pixels, cover nearly all of it, and put no pixel far outside it (spikes
// from weights that do not sum to 1; limbs drawn where only one mesh of many
// was placed).
func TestBrowserCharacters(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	for _, c := range []struct {
		file, clip string
	}{
		{"threejs/Xbot.glb", "walk"},
		{"threejs/RobotExpressive.glb", "Dance"},
		{"CesiumMan.gltf", ""}, // its one clip
	} {
		t.Run(c.file, func(t *testing.T) {
			path := testfiles.Path(t, "gltf", c.file)
			a, err := LoadGLTF(path)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := gltfref.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			clips := a.File().Clips()
			ci := 0
			for k, cl := range clips {
				if cl.Name == c.clip {
					ci = k
				}
			}
			clip := clips[ci]
			if c.clip != "" && clip.Name != c.clip {
				t.Fatalf("no clip %q among %d", c.clip, len(clips))
			}
			// Clip k is the file's animation k (no manifest, no clip files).
			anims := ref.Animations()
			if len(anims) != len(clips) || (anims[ci].Name != "" && anims[ci].Name != clip.Name) {
				t.Fatalf("clip %d %q: the file's animations are %+v", ci, clip.Name, anims)
			}
			times := gltfref.FrameTimes(anims[ci].Duration-anims[ci].Start, float64(clip.FPS), clip.Loops)
			if len(times) != clip.FrameCount {
				t.Fatalf("clip %q: %d frames, the sampling rule gives %d", clip.Name, clip.FrameCount, len(times))
			}
			frame := clip.FrameCount / 3
			intervals := float64(clip.FrameCount)
			if !clip.Loops {
				intervals--
			}
			phase := (float64(frame) + 1e-6) / intervals // frame itself: lerp ≈ 0

			p := openViewer(t, []*Asset{a}, fmt.Sprintf("?n=1&paused=1&skeleton=0&sockets=0&props=0&fades=0&clock=0&clip=%s", clip.Name), 800, 600)
			p.eval(fmt.Sprintf("bonebake.seek(%v).then(() => bonebake.focusSelected()).then(() => bonebake.nextFrames(2))", phase))
			fi := p.eval("bonebake.focusInstance()").(map[string]any)
			var rec [RecordFloats]float64
			for i, v := range fi["record"].([]any) {
				rec[i] = v.(float64)
			}
			if fi["clip"] != clip.Name || int(rec[0]) != clip.FrameOffset+frame || rec[2] > 1e-3 || rec[19] != 0 || rec[23] != 0 {
				t.Fatalf("the unit plays %v, record %v; want frame row %d of %q, not blended", fi["clip"], rec[:24], clip.FrameOffset+frame, clip.Name)
			}
			var vp [16]float64
			for i, v := range p.eval("bonebake.viewProj()").([]any) {
				vp[i] = v.(float64)
			}
			box := p.eval(`(() => { const r = document.getElementById('view').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`).([]any)
			cv := [4]float64{box[0].(float64), box[1].(float64), box[2].(float64), box[3].(float64)}
			p.eval("bonebake.sync()")
			drawn := p.screenshot()
			p.eval("bonebake.setCrowdVisible(false); bonebake.nextFrames(2)")
			empty := p.screenshot()
			p.eval("bonebake.setCrowdVisible(true); bonebake.nextFrames(1)")
			p.checkClean()

			// The reference: every mesh node posed at the frame's time, placed
			// as the vertex shader places a unit (scale, yaw about +y, x and z).
			tm := anims[ci].Start + times[frame]
			size := drawn.Bounds().Size()
			want := newMask(size.X, size.Y)
			vertices := 0
			cy, sy := math.Cos(rec[10]), math.Sin(rec[10])
			for n := range ref.NodeCount() {
				if ref.MeshOf(n) < 0 {
					continue
				}
				vs, err := ref.Vertices(n, ci, tm)
				if err != nil {
					t.Fatalf("node %d: %v", n, err)
				}
				tris, err := ref.Triangles(n)
				if err != nil {
					t.Fatalf("node %d: %v", n, err)
				}
				vertices += len(vs)
				screen := make([][3]float64, len(vs)) // x, y in screenshot pixels; w
				for i, v := range vs {
					q := [3]float64{v[0] * rec[11], v[1] * rec[11], v[2] * rec[11]}
					w := [3]float64{cy*q[0] + sy*q[2] + rec[8], q[1], -sy*q[0] + cy*q[2] + rec[9]}
					var clip [4]float64
					for r := range 4 {
						clip[r] = vp[r]*w[0] + vp[4+r]*w[1] + vp[8+r]*w[2] + vp[12+r] // column-major
					}
					screen[i] = [3]float64{cv[0] + (clip[0]/clip[3]*0.5+0.5)*cv[2], cv[1] + (0.5-clip[1]/clip[3]*0.5)*cv[3], clip[3]}
				}
				for _, tr := range tris {
					want.fill(screen[tr[0]], screen[tr[1]], screen[tr[2]])
				}
			}
			// The page sizes and frames the model by its box at rest, where
			// the spec puts it (every mesh node at rest).
			lo, hi := math.Inf(1), math.Inf(-1)
			for n := range ref.NodeCount() {
				if ref.MeshOf(n) >= 0 {
					vs, err := ref.Vertices(n, -1, 0)
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range vs {
						lo, hi = min(lo, v[1]), max(hi, v[1])
					}
				}
			}
			if h := p.number("bonebake.state.assets[0].height"); math.Abs(h-(hi-lo)) > 1e-4*(hi-lo) {
				t.Errorf("the page measures the model %.5g tall; at rest it is %.5g", h, hi-lo)
			}
			if vertices != a.Mesh().VertexCount() {
				t.Errorf("the file's mesh nodes have %d vertices; the viewer draws %d", vertices, a.Mesh().VertexCount())
			}
			// Drawn: the canvas' pixels that change with the crowd hidden (the
			// panel beside it shows statistics that change by themselves).
			got := newMask(size.X, size.Y)
			canvas := image.Rect(int(cv[0]), int(cv[1]), int(cv[0]+cv[2]), int(cv[1]+cv[3])).Intersect(drawn.Bounds())
			for y := canvas.Min.Y; y < canvas.Max.Y; y++ {
				for x := canvas.Min.X; x < canvas.Max.X; x++ {
					r1, g1, b1, _ := drawn.At(x, y).RGBA()
					r2, g2, b2, _ := empty.At(x, y).RGBA()
					got.set(x, y, absDiff(r1, r2)+absDiff(g1, g2)+absDiff(b1, b2) > 3*6*257)
				}
			}
			saveShot(t, overlay(drawn, want), "character-"+a.Name+".png")

			wb, gb := want.bounds(), got.bounds()
			t.Logf("%s %q frame %d (t = %.3f s): projected %v (%d px), drawn %v (%d px)", a.Name, clip.Name, frame, tm, wb, want.count(), gb, got.count())
			if wb.Empty() || !wb.In(canvas.Inset(2)) {
				t.Fatalf("the character projects to %v, not inside the canvas %v: the close-up does not frame it", wb, canvas)
			}
			if wb.Dy() < canvas.Dy()/4 {
				t.Errorf("the character is %d pixels tall in a %d-pixel canvas: not a close-up", wb.Dy(), canvas.Dy())
			}
			const edge = 3 // pixels: antialiasing and float32 against float64
			if d := max(absInt(gb.Min.X-wb.Min.X), absInt(gb.Min.Y-wb.Min.Y), absInt(gb.Max.X-wb.Max.X), absInt(gb.Max.Y-wb.Max.Y)); d > edge {
				t.Errorf("drawn within %v, projected within %v: %d pixels apart, want at most %d", gb, wb, d, edge)
			}
			// Far: more than edge pixels from every projected pixel.
			far, example := want.farFrom(got, edge)
			if far > 0 {
				t.Errorf("%d drawn pixels lie more than %d pixels outside the projected silhouette (one at %v): spikes or misplaced parts", far, edge, example)
			}
			if missed := got.missing(want); missed > want.count()/20 {
				t.Errorf("%d of the %d projected pixels are not drawn (more than 5%%): parts of the character are missing", missed, want.count())
			}
		})
	}
}

// mask is a boolean image.
type mask struct {
	w, h int
	on   []bool
}

func newMask(w, h int) *mask { return &mask{w, h, make([]bool, w*h)} }

func (m *mask) set(x, y int, v bool) { m.on[y*m.w+x] = v }

func (m *mask) at(x, y int) bool { return x >= 0 && y >= 0 && x < m.w && y < m.h && m.on[y*m.w+x] }

// fill sets the pixels whose centres lie inside the triangle (either winding;
// a triangle with a vertex behind the eye is skipped).
func (m *mask) fill(a, b, c [3]float64) {
	if a[2] <= 0 || b[2] <= 0 || c[2] <= 0 {
		return
	}
	area := (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
	if area == 0 || math.IsNaN(area) {
		return
	}
	x0, x1 := max(0, int(math.Floor(min(a[0], b[0], c[0])))), min(m.w-1, int(math.Ceil(max(a[0], b[0], c[0]))))
	y0, y1 := max(0, int(math.Floor(min(a[1], b[1], c[1])))), min(m.h-1, int(math.Ceil(max(a[1], b[1], c[1]))))
	edgeFn := func(p, q [3]float64, x, y float64) float64 { return (q[0]-p[0])*(y-p[1]) - (q[1]-p[1])*(x-p[0]) }
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			e0, e1, e2 := edgeFn(a, b, px, py), edgeFn(b, c, px, py), edgeFn(c, a, px, py)
			if area < 0 {
				e0, e1, e2 = -e0, -e1, -e2
			}
			if e0 >= 0 && e1 >= 0 && e2 >= 0 {
				m.on[y*m.w+x] = true
			}
		}
	}
}

func (m *mask) count() int {
	n := 0
	for _, v := range m.on {
		if v {
			n++
		}
	}
	return n
}

func (m *mask) bounds() image.Rectangle {
	r := image.Rectangle{}
	for y := range m.h {
		for x := range m.w {
			if m.on[y*m.w+x] {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// farFrom counts the pixels of o more than d pixels (in x and in y) from
// every pixel of m, and returns one of them.
func (m *mask) farFrom(o *mask, d int) (n int, example image.Point) {
	for y := range o.h {
		for x := range o.w {
			if !o.on[y*o.w+x] || m.near(x, y, d) {
				continue
			}
			if n == 0 {
				example = image.Pt(x, y)
			}
			n++
		}
	}
	return n, example
}

func (m *mask) near(x, y, d int) bool {
	for dy := -d; dy <= d; dy++ {
		for dx := -d; dx <= d; dx++ {
			if m.at(x+dx, y+dy) {
				return true
			}
		}
	}
	return false
}

// missing counts the pixels of o that m lacks.
func (m *mask) missing(o *mask) int {
	n := 0
	for i, v := range o.on {
		if v && !m.on[i] {
			n++
		}
	}
	return n
}

// overlay is img with the outline of m in red, for looking at.
func overlay(img image.Image, m *mask) image.Image {
	out := image.NewRGBA(img.Bounds())
	for y := range m.h {
		for x := range m.w {
			out.Set(x, y, img.At(x, y))
			if m.at(x, y) && (!m.at(x-1, y) || !m.at(x+1, y) || !m.at(x, y-1) || !m.at(x, y+1)) {
				out.Set(x, y, color.RGBA{255, 0, 0, 255})
			}
		}
	}
	return out
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestBrowserRestBounds: the page measures a glTF model by the box at rest the
// server sends (rest_bounds), not by the mesh's stored positions, which for a
// skin bound in another pose stand in that pose. Here the box is made up, 3 m
// tall and 2 m wide, about CesiumMan's 1.5 m.
func TestBrowserRestBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	a, err := LoadGLTF(testfiles.Path(t, "gltf", "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	a.restBounds = &[2][3]float32{{-1, 0, -1}, {1, 3, 0.5}}
	p := openViewer(t, []*Asset{a}, "?n=1&paused=1&skeleton=0&sockets=0&props=0", 400, 300)
	if h, r := p.number("bonebake.state.assets[0].height"), p.number("bonebake.state.assets[0].radius"); h != 3 || r != 1 {
		t.Errorf("the page measures height %v and radius %v; rest_bounds say 3 and 1", h, r)
	}
	p.checkClean()
}
