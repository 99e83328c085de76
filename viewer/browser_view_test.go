package viewer

import (
	"testing"
)

// TestBrowserDefaultViewFullDetail opens the page as `bonebake view` does (300
// units, nothing in the URL) and counts the levels the selected species' units
// are drawn at: some at full detail. Framed as the page used to open (the whole
// crowd: frameCrowd, or frame=1), none are (issue 45 item 5: 0 of 300).
func TestBrowserDefaultViewFullDetail(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	p := openViewer(t, builtins(t), "", 640, 400)
	sel := p.eval("bonebake.state.assets[bonebake.state.selected].name").(string)
	levels := func(js string) [3]float64 {
		tl := parseTally(p.eval(js + "bonebake.settled().then(() => bonebake.nextFrames(3)).then(() => bonebake.lodStats())").(map[string]any))
		for _, a := range tl.Assets {
			if a.Name == sel {
				return a.Units
			}
		}
		t.Fatalf("no %s in the tally %+v", sel, tl)
		return [3]float64{}
	}
	if got := levels(""); got[0] == 0 {
		t.Errorf("default view: %s has no unit at full detail: %v full, reduced, snapshot", sel, got)
	}
	if got := levels("bonebake.frameCrowd(), "); got[0] != 0 {
		t.Errorf("the whole crowd framed: %s has %v full, reduced, snapshot; want none full (else this test proves nothing)", sel, got)
	}
}
