package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/source/gltf"

	"github.com/chromedp/chromedp"
)

// TestBrowserTexture draws the Fox with its base colour texture and with the
// texture withheld: the texture's orange fur shows only in the first.
func TestBrowserTexture(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(fox.textures) != 1 {
		t.Fatalf("%d textures", len(fox.textures))
	}
	plain := *fox
	plain.Name, plain.textures = "FoxPlain", nil
	plain.parts = append([]MeshPart(nil), fox.parts...)
	for i := range plain.parts {
		plain.parts[i].Texture = -1
	}
	// An image with a PNG signature that does not decode: the page still starts
	// and draws the part untextured.
	broken := plain
	broken.Name, broken.parts = "FoxBroken", fox.parts
	broken.textures = []*gltf.Texture{{MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\nnot really")}}
	p := openViewer(t, []*Asset{fox, &plain, &broken}, "?n=1&only=1&paused=1&t=0.5&skeleton=0&sockets=0&focus=1", 900, 457)
	orange := func(name string) int {
		p.eval(fmt.Sprintf("bonebake.selectAsset(%q).then(() => bonebake.focusSelected())", name))
		p.frames(3)
		p.checkClean()
		img := p.screenshot()
		c, ok := p.eval("(() => { const r = document.querySelector('canvas').getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })()").(map[string]any)
		if !ok {
			t.Fatal("no canvas")
		}
		r := rect{c["x"].(float64), c["y"].(float64), c["w"].(float64), c["h"].(float64)}
		n := 0
		for y := int(r.Y); y < int(r.Y+r.H); y++ {
			for x := int(r.X); x < int(r.X+r.W); x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if cr > 110*257 && cr*10 > cg*14 && cr > cb*2 {
					n++
				}
			}
		}
		return n
	}
	textured, flat, undecoded := orange("Fox"), orange("FoxPlain"), orange("FoxBroken")
	t.Logf("orange pixels: %d textured, %d without the texture, %d with one that does not decode", textured, flat, undecoded)
	if textured < 500 || flat > textured/20 || undecoded != flat {
		t.Errorf("orange pixels: %d with the texture, %d without, %d with a broken one; want many, and few, and as few", textured, flat, undecoded)
	}
}

// TestBrowserBattle shows crowd/battle's battle: both armies drawn in their
// colours, their numbers in the panel, and a note that the glTF model does not
// fight.
func TestBrowserBattle(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	assets := append(append([]*Asset(nil), builtins(t)...), fox)
	// Paused but while units must move: the page draws only the frames read.
	// 120 units: 60 an army (a frame of 300 took SwiftShader half a second).
	p := openViewer(t, assets, "?frame=1&n=120&layout=battle&paused=1&skeleton=0&sockets=0&aa=0", 1000, 497)
	p.frames(3)
	p.checkClean()
	if l := p.eval("bonebake.state.crowd.layout"); l != "battle" {
		t.Fatalf("layout %v", l)
	}
	alive := p.eval("bonebake.stats.alive").([]any)
	if alive[0].(float64) < 40 || alive[1].(float64) < 40 {
		t.Errorf("armies standing: %v", alive)
	}
	if n := p.eval("document.getElementById('note').textContent").(string); !strings.Contains(n, "Fox (not a built-in species)") {
		t.Errorf("the note says %q", n)
	}
	// The panel refreshes at most every 250 ms, and at the first frame after a
	// new crowd: on a fast machine the three frames above take less.
	p.waitFor(`document.getElementById('stats').textContent.includes('armies standing')`)
	if s := p.eval("document.getElementById('stats').textContent").(string); !strings.Contains(s, "armies standing") {
		t.Errorf("the stats lack the armies: %q", s)
	}
	img, r := p.screenshot(), p.crowdRect()
	red, blue := 0, 0
	for y := int(r.Y); y < int(r.Y+r.H); y++ {
		for x := int(r.X); x < int(r.X+r.W); x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			switch {
			case cr > 80*257 && cr*10 > cg*17 && cr*10 > cb*17:
				red++
			case cb > 60*257 && cb*10 > cr*16 && cb*10 > cg*13:
				blue++
			}
		}
	}
	t.Logf("red pixels %d, blue pixels %d in %+v", red, blue, r)
	if red < 200 || blue < 200 {
		t.Errorf("the armies' colours: %d red and %d blue pixels", red, blue)
	}
	// The battle goes on: units move (the sum of every unit's x and z changes).
	const places = `bonebake.state.assets.reduce((s, A) => { for (let o = 0; o < A.count * 32; o += 32) s += A.instData[o + 8] + A.instData[o + 9]; return s; }, 0)`
	s0 := p.number(places)
	p.eval("bonebake.play()")
	p.eval("new Promise((res) => setTimeout(res, 600))")
	p.eval("bonebake.pause(); bonebake.settled()")
	if s1 := p.number(places); s1 == s0 {
		t.Errorf("no unit moved in 600 ms: %v", s0)
	}
	if shot := os.Getenv("BONEBAKE_VIEWER_BATTLE_SCREENSHOT"); shot != "" {
		b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil || os.WriteFile(shot, b, 0o644) != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
	p.checkClean()
}

// TestBrowserLongPath: a model from a deeply nested folder keeps every value of
// the info panel inside the panel; the path is shown by its end, whole on hover.
func TestBrowserLongPath(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	dir := t.TempDir()
	for range 4 {
		dir = filepath.Join(dir, strings.Repeat("a_very_long_folder_name_", 3))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Fox.glb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fox, err := LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	p := openViewer(t, []*Asset{fox}, "?n=1&paused=1", 1000, 457)
	got := p.eval(`(() => {
		const panel = document.getElementById('panel').getBoundingClientRect();
		const out = [];
		for (const tr of document.querySelectorAll('#info tr')) {
			const [k, v] = tr.cells, r = v.getBoundingClientRect();
			const inside = r.left >= panel.left - 0.5 && r.right <= panel.right + 0.5 && r.width > 20;
			out.push(k.textContent + '=' + (inside ? 'in' : 'OUT') + (v.title ? ':' + v.title : ''));
		}
		return out.join('\n');
	})()`).(string)
	t.Log(got)
	if !strings.Contains(got, "file=in:"+path) || !strings.Contains(got, "species id=in") || !strings.Contains(got, "bones=in") || strings.Contains(got, "OUT") {
		t.Errorf("info panel rows (want every value inside the panel, the file's whole path on hover):\n%s", got)
	}
}

// TestBrowserNoWebGL: without WebGL2 the page says so, and what to try, instead
// of staying blank.
func TestBrowserNoWebGL(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	p, ready := openPage(t, []*Asset{fox}, "", 800, 357, "disable-3d-apis")
	msg := p.eval(`(() => { const m = document.getElementById('message'); return m.hidden ? '' : m.textContent; })()`)
	t.Logf("started: %v; message: %v", ready, msg)
	// A context lost later says so too.
	q := openViewer(t, []*Asset{fox}, "?n=1", 800, 357)
	q.eval(`(() => { document.querySelector('canvas').getContext('webgl2').getExtension('WEBGL_lose_context').loseContext(); return 1; })()`)
	lost := q.eval(`new Promise((res) => setTimeout(() => { const m = document.getElementById('message'); res(m.hidden ? '' : m.textContent); }, 300))`)
	if s, _ := lost.(string); !strings.Contains(s, "context was lost") {
		t.Errorf("context lost: the page shows %q", lost)
	}
	if s, _ := msg.(string); !strings.Contains(s, "WebGL2") || !strings.Contains(s, "hardware acceleration") || strings.Contains(s, "app.js") {
		t.Errorf("no WebGL2: the page shows %q", msg)
	}
}
