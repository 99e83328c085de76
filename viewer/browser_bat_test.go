package viewer

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/bonebake/bonebake/species/creatures"
)

// TestBrowserBAT renders one paused frame of a built-in creature side by side:
// skinned from the palette on the left, from the raw float BAT textures on the
// right (the same camera in two halves of equal size). The two halves must agree
// pixel for pixel, save for rasterization noise, and show the creature.
func TestBrowserBAT(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	a, err := FromSpecies(creatures.All()[0])
	if err != nil {
		t.Fatal(err)
	}
	p := openViewer(t, []*Asset{a}, "?n=1&only=1&clip=walk&paused=1&skeleton=0&sockets=0&props=0&focus=1&aa=0&bat=side&preset=raw&format=exr", 1000, 417)
	if got := p.eval("bonebake.focusInstance().clip"); got != "walk" {
		t.Fatalf("focus clip %v, want walk", got)
	}
	p.eval("bonebake.seek(0.37).then(() => bonebake.nextFrames(2))")
	p.checkClean()
	if enc := p.eval("bonebake.batReport('humanoid').rotation.encoding"); enc != "float32" {
		t.Fatalf("BAT rotation encoding %v, want float32 (raw/exr)", enc)
	}
	// The canvas in screenshot pixels: the device pixel ratio is 1.
	w := int(p.number("document.getElementById('view').width"))
	h := int(p.number("document.getElementById('view').height"))
	if cw := p.number("document.getElementById('view').clientWidth"); int(cw) != w {
		t.Fatalf("canvas %d pixels for %v CSS pixels: want a device pixel ratio of 1", w, cw)
	}
	half := w / 2
	img := p.screenshot()
	saveShot(t, img, "bat-side.png")

	// The background's colour, from the top-left corner (the sky above the grid).
	bg := pixel(img, 1, 1)
	covered, differ, total := compareHalves(img, w, h, half, bg)
	t.Logf("%d × %d halves: creature covers %d (palette) and %d (BAT) pixels; %d pixels differ", half, h, covered[0], covered[1], differ)
	for i, side := range []string{"palette", "BAT"} {
		if covered[i] < 3000 {
			t.Errorf("the %s half shows only %d pixels unlike the background: the creature is not drawn", side, covered[i])
		}
	}
	if differ > total/100 {
		t.Errorf("%d of %d pixels differ between the palette and the BAT halves (more than 1%%)", differ, total)
	}

	// Mid-fade (walk to run, 0.1 s of 0.3 s) the BAT half blends the two clips as
	// the palette half does.
	p.eval("bonebake.selectClip('run', 0.1).then(() => bonebake.nextFrames(2))")
	if w := p.number("bonebake.focusInstance().record[19]"); !(w > 0.5 && w < 1) {
		t.Fatalf("walk's weight %v 0.1 s into a fade to run", w)
	}
	covered, differ, total = compareHalves(p.screenshot(), w, h, half, bg)
	t.Logf("mid-fade: creature covers %d (palette) and %d (BAT) pixels; %d pixels differ", covered[0], covered[1], differ)
	if covered[1] < 3000 || differ > total/100 {
		t.Errorf("mid-fade: %d of %d pixels differ between the palette and the BAT halves", differ, total)
	}

	// 8-bit textures cost precision, and the page shows what the report says.
	raw := p.number("bonebake.batReport('humanoid').max_error.vertex")
	p.eval("bonebake.setBAT('side', 'ue', 'png8')")
	p.checkClean()
	ue8 := p.number("bonebake.batReport('humanoid').max_error.vertex")
	if !(ue8 > 10*raw) {
		t.Errorf("max_error.vertex: ue/png8 %g, raw/exr %g: want 8-bit far worse", ue8, raw)
	}
	if info := p.eval("document.getElementById('bat-info').textContent"); !bytes.Contains([]byte(fmt.Sprint(info)), []byte("unorm8")) {
		t.Errorf("the BAT panel says %q, want the unorm8 encoding", info)
	}
	saveShot(t, p.screenshot(), "bat-side-ue-png8.png")

	// The gametools preset's textures are in centimetres in Blender's axes, with
	// a padding row and the first frame as reference: drawn back in the scene they
	// cover the palette's creature (the add-on's rebuild of blended vertices from
	// a non-bind reference is its own approximation, centimetres at most here).
	p.eval("bonebake.setBAT('side', 'gametools', 'exr')")
	p.checkClean()
	if shift := p.number("bonebake.batReport('humanoid').viewer.row_shift"); shift != 2 {
		t.Errorf("gametools row shift %v, want 2 (reference row, padding row)", shift)
	}
	img = p.screenshot()
	saveShot(t, img, "bat-side-gametools.png")
	covered, differ, total = compareHalves(img, w, h, half, bg)
	t.Logf("gametools: creature covers %d (palette) and %d (BAT) pixels; %d pixels differ", covered[0], covered[1], differ)
	if covered[1] < covered[0]*9/10 || covered[1] > covered[0]*11/10 || differ > total/100 {
		t.Errorf("gametools: %d and %d pixels covered, %d of %d differ: the BAT half is not the palette's creature", covered[0], covered[1], differ, total)
	}
}

// saveShot writes a screenshot into $BONEBAKE_VIEWER_SHOTS, when set.
func saveShot(t *testing.T, img image.Image, name string) {
	dir := os.Getenv("BONEBAKE_VIEWER_SHOTS")
	if dir == "" {
		return
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil || os.WriteFile(dir+"/"+name, b.Bytes(), 0o644) != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

// compareHalves compares the left and right halves (half pixels wide each) of
// a w × h screenshot: how many pixels of each half stand out from the
// background colour bg (the creature drawn there), and how many differ between
// the halves, of total compared.
func compareHalves(img image.Image, w, h, half int, bg [3]int) (covered [2]int, differ, total int) {
	for y := range h {
		for x := range half {
			l, r := pixel(img, x, y), pixel(img, w-half+x, y)
			for i, c := range [2][3]int{l, r} {
				if dist(c, bg) > 60 {
					covered[i]++
				}
			}
			if dist(l, r) > 12 {
				differ++
			}
			total++
		}
	}
	return covered, differ, total
}

func pixel(img image.Image, x, y int) [3]int {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// dist is the sum of the channel differences of two colours (0-255 each).
func dist(a, b [3]int) int {
	d := 0
	for i := range a {
		d += max(a[i]-b[i], b[i]-a[i])
	}
	return d
}
