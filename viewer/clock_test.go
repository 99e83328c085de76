package viewer

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/crowd"
)

// TestClockMatchesBatch: a parade played in the GPU clock mode shows, step for
// step, what the same parade played by crowd.Batch shows: each unit's record
// resolved by crowd.TimeRecord.At at the clock's time gives the rows, lerps and
// fade weights of the per-frame records, through clip overrides that fade,
// interrupt fades and pop (fades off), one-shots replayed and a seek.
func TestClockMatchesBatch(t *testing.T) {
	s := New(builtins(t))
	frame, err := s.NewScene(SceneParams{Layout: LayoutParade, Count: 400, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	clocked, err := s.NewScene(SceneParams{Layout: LayoutParade, Count: 400, Seed: 7, Clock: true})
	if err != nil {
		t.Fatal(err)
	}
	if frame.Clocked() || !clocked.Clocked() {
		t.Fatal("Clock does not choose the mode")
	}
	none := make([]int, len(s.assets))
	for a := range none {
		none[a] = -1
	}
	with := func(pairs ...int) []int {
		o := append([]int(nil), none...)
		for k := 0; k < len(pairs); k += 2 {
			o[pairs[k]] = pairs[k+1]
		}
		return o
	}
	checked, bad := 0, 0
	for k := range 150 {
		in := StepInput{Focus: 1, Seek: math.NaN()}
		switch {
		case k >= 20 && k < 24:
			in.Override = with(0, 1) // a fade ...
		case k >= 24 && k < 60:
			in.Override = with(0, 2, 1, 0) // ... interrupted
		case k >= 60 && k < 70:
			in.Override = with(1, 3)
		case k >= 70 && k < 90:
			in.Override, in.NoFade = with(1, 1), k == 70 // a pop
		}
		if k == 100 {
			in.Seek = 0.4
		}
		dt := float32(1) / 30
		if k%7 == 3 {
			dt = 0.011 // uneven steps
		}
		ff, err := frame.Step(dt, in)
		if err != nil {
			t.Fatal(err)
		}
		fc, err := clocked.Step(dt, in)
		if err != nil {
			t.Fatal(err)
		}
		if ff.Clip != fc.Clip || absf(float64(ff.Phase-fc.Phase)) > 1e-4 {
			t.Errorf("step %d: focus %+v per frame, %+v clocked", k, ff, fc)
		}
		var rec [RecordFloats]float32
		for i := range clocked.Len() {
			clocked.focusRecord(i, rec[:])
			want := frame.Records[i*RecordFloats : (i+1)*RecordFloats]
			checked++
			if !sameRecord(want, rec[:]) {
				if bad++; bad <= 5 {
					t.Logf("step %d unit %d:\nper frame %v\nclocked   %v", k, i, want, rec)
				}
			}
		}
	}
	// Phases summed step by step and taken from one product differ in the last
	// bits: a one-shot can reach its end, and replay, a step apart.
	if bad > checked/10000 {
		t.Errorf("%d of %d unit steps differ", bad, checked)
	}
	t.Logf("%d of %d unit steps differ", bad, checked)
}

// sameRecord compares two records: each side's place in the palette (frame
// row + lerp, so that a phase rounded onto a frame boundary from either side
// agrees), next row, weight, tint and place within float rounding; the rows of a
// side that weighs 0 in both (a fade at its last instant) do not matter.
func sameRecord(a, b []float32) bool {
	near := func(x, y float32) bool { return absf(float64(x-y)) <= 2e-3 }
	for g := 0; g < RecordFloats; g += 4 {
		if g == recTint || g == recPlace {
			if !near(a[g], b[g]) || !near(a[g+1], b[g+1]) || !near(a[g+2], b[g+2]) || !near(a[g+3], b[g+3]) {
				return false
			}
			continue
		}
		if g >= recFade && a[g+3] == 0 && b[g+3] == 0 {
			continue
		}
		if !near(a[g]+a[g+2], b[g]+b[g+2]) || !near(a[g+3], b[g+3]) {
			return false
		}
		if a[g] == b[g] && a[g+1] != b[g+1] {
			return false
		}
	}
	return true
}

// TestClockSendsChanges: a clock step answer carries the units whose records
// changed: all of them first, then none while nothing changes but a one-shot
// replaying, then an asset's units when a clip is chosen for it.
func TestClockSendsChanges(t *testing.T) {
	s := New(builtins(t))
	_, j := post(t, s, `{"layout":"parade","count":300,"seed":1,"clock":true}`)
	if j.Playback != "clock" {
		t.Fatalf("playback %q, want clock", j.Playback)
	}
	sent := func(query string) (int, float32) {
		t.Helper()
		b := get(t, s, "/api/crowd/1/step?"+query).Body.Bytes()
		if string(b[:4]) != ClockMagic {
			t.Fatalf("answer starts %q", b[:4])
		}
		n := int(binary.LittleEndian.Uint32(b[8:]))
		o := stepHeader + 4*n
		now := math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))
		o += 4 + RecordFloats*4
		k := int(binary.LittleEndian.Uint32(b[o:]))
		o += 4 + k*clockEntry
		if len(b) != o+4 || binary.LittleEndian.Uint32(b[o:]) != 0 {
			t.Fatalf("%d bytes for %d entries and no levels of detail", len(b), k)
		}
		return k, now
	}
	if k, _ := sent("dt=0"); k != 300 {
		t.Errorf("the first answer sends %d records, want all 300", k)
	}
	most := 0
	for range 30 {
		k, _ := sent("dt=0.033")
		most = max(most, k)
	}
	t.Logf("at most %d of 300 records a step", most)
	if most > 15 {
		t.Errorf("steps with no changes send up to %d records", most)
	}
	// Asset 0's unit k plays its clip k mod (its clips) in the parade: those of
	// them already on clip 1 do not change.
	units, clips := j.Assets[0].Units, len(s.assets[0].file.Clips())
	if k, now := sent("dt=0.033&clips=0:1"); k < units-(units-1+clips-1)/clips || math.Abs(float64(now)-31*0.033) > 1e-4 {
		t.Errorf("choosing a clip for asset 0 (%d units) sends %d records at %v", units, k, now)
	}
	_, jb := post(t, s, `{"layout":"battle","count":300,"seed":1,"clock":true}`)
	if jb.Playback != "frame" {
		t.Errorf("a battle plays %q, want frame", jb.Playback)
	}
	_ = crowd.TimeRecordSize
}

// TestClockSendsLevels: with the camera's position in the query, a clock answer
// carries the units' levels of detail (and their riders'): every unit's at
// first, then only those that changed, as the player chose them; moving the
// camera far away sends the units it takes past a boundary, and a step without
// it turns level of detail off.
func TestClockSendsLevels(t *testing.T) {
	s := New(builtins(t))
	_, j := post(t, s, `{"layout":"parade","count":400,"seed":1,"clock":true}`)
	if j.Playback != "clock" {
		t.Fatalf("playback %q, want clock", j.Playback)
	}
	c := s.crowds.get(1).c
	type level struct{ body, rider crowd.Level }
	seen := map[int]level{}
	step := func(query string) (n int) {
		t.Helper()
		b := get(t, s, "/api/crowd/1/step?"+query).Body.Bytes()
		le := binary.LittleEndian
		o := stepHeader + 4*int(le.Uint32(b[8:])) + 4 + RecordFloats*4
		o += 4 + int(le.Uint32(b[o:]))*clockEntry
		n = int(le.Uint32(b[o:]))
		o += 4
		if len(b) != o+8*n {
			t.Fatalf("%s: %d bytes for %d level entries", query, len(b)-o, n)
		}
		for e := range n {
			i := int(le.Uint32(b[o+8*e:]))
			if i >= c.Len() || b[o+8*e+6] != 0 || b[o+8*e+7] != 0 {
				t.Fatalf("%s: level entry %d: unit %d of %d, bytes %v", query, e, i, c.Len(), b[o+8*e:o+8*e+8])
			}
			seen[i] = level{crowd.Level(b[o+8*e+4]), crowd.Level(b[o+8*e+5])}
		}
		riders := 0
		for i := range c.Len() {
			want := level{body: c.play.Level[i]}
			if r := c.riderUnit[i]; r >= 0 {
				want.rider = c.play.Level[r]
				riders++
			}
			if seen[i] != want {
				t.Fatalf("%s: unit %d: the page was told %v, the player chose %v", query, i, seen[i], want)
			}
		}
		if riders == 0 {
			t.Fatal("the parade has no riders")
		}
		return n
	}
	e := c.Extent() // the camera at a corner of the parade, then 60 m farther out
	near := fmt.Sprintf("eye=%g,2,%g", e[0], e[1])
	away := fmt.Sprintf("eye=%g,2,%g", e[0]-60, e[1]-60)
	if n := step("dt=0&" + near); n != c.Len() {
		t.Errorf("the first answer sends %d units' levels, want all %d", n, c.Len())
	}
	if n := step("dt=0.033&" + near); n > c.Len()/50 {
		t.Errorf("a step with the camera still sends %d units' levels", n)
	}
	var levels [crowd.NumLevels]int
	for _, l := range seen {
		levels[l.body]++
	}
	far := step("dt=0.033&" + away)
	if far == 0 || far == c.Len() {
		t.Errorf("moving the camera away sends %d units' levels of %d", far, c.Len())
	}
	t.Logf("extent %v; near: %v units per level; moving away changed %d units", e, levels, far)
	if levels[crowd.LevelFull] == 0 || levels[crowd.LevelFull] == c.Len() {
		t.Errorf("from a corner of the parade, %v units per level: want some near and some far", levels)
	}
	if n := step("dt=0.033&" + away); n > c.Len()/50 {
		t.Errorf("the camera still again: %d units' levels sent", n)
	}
	b := get(t, s, "/api/crowd/1/step?dt=0.033&lod=0").Body.Bytes()
	if n := binary.LittleEndian.Uint32(b[len(b)-4:]); n != 0 {
		t.Errorf("lod=0: %d level entries", n)
	}
	if n := step("dt=0.033&" + away); n != c.Len() {
		t.Errorf("level of detail back on: %d units' levels sent, want all %d", n, c.Len())
	}
}

// TestClockShaderHasNoRuleOfItsOwn: the GPU clock pass takes the playback
// rule, a swing's eased timeline included, from the core's PLAYBACK chunk
// (whose GLSL the package's node test runs on the golden cases) and keeps no
// copy of it: it includes the chunk, calls its functions, and defines no
// function or constant table of its own that plays clips.
func TestClockShaderHasNoRuleOfItsOwn(t *testing.T) {
	b, err := fs.ReadFile(webFS, "web/clock.vert.glsl")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if !strings.Contains(src, "\n#include <bonebake_playback>\n") {
		t.Error("clock.vert.glsl does not include the core's PLAYBACK chunk")
	}
	for _, f := range []string{"bonebakeSettle(", "bonebakeResolve(", "bonebakeWeights(", "bonebakeAttackPhase("} {
		if !strings.Contains(src, f) {
			t.Errorf("clock.vert.glsl does not call %s)", f)
		}
	}
	// Its own functions decode its entries (phaseAt, rows, resolve, atLevel);
	// none settles, floors or eases a phase, and it holds no float table (the
	// swing's timeline was one). laneEdge, the parade's shrink at a lane's
	// ends, eases a place, not a phase: TestLaneEdgeGolden checks it.
	src = regexp.MustCompile(`(?s)float laneEdge\(.*?\n}\n`).ReplaceAllString(src, "")
	for _, f := range []string{"floor(", "fract(", "smoothstep(", "3.0 - 2.0"} {
		if strings.Contains(src, f) {
			t.Errorf("clock.vert.glsl computes %s itself: the rule belongs in the core's PLAYBACK chunk", f)
		}
	}
	if m := regexp.MustCompile(`(?m)^const float \w+\[`).FindString(src); m != "" {
		t.Errorf("clock.vert.glsl has a table of its own (%q…): the swing's timeline belongs in PLAYBACK", m)
	}
}
