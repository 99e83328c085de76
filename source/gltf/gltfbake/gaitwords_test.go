package gltfbake

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/stride"
)

// TestGaitReasonUnits: a gait reason gives its speeds with their unit, metres
// for a BVH taken for metres (a_biped_walk's reason said "2.879 per s of
// clip", a number a user could not place), as the summary's speeds do. Its
// stance foot at its lowest, under the hips at 0.25 s, moves back over the
// ground at 1.02 m/s (its joint's positions differenced by hand, 1/240 s
// apart), 2.22 m/s against the root's mean travel of 1.2 m/s.
func TestGaitReasonUnits(t *testing.T) {
	m, err := Load(testfiles.Path(t, "bvh", "a_biped_walk.bvh"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Gaits("x.bpat").Clips[0]
	if !strings.Contains(c.Reason, "at 2.234 m per s of clip") || !strings.Contains(c.Reason, "the root, which travels 1.2 m per s, so") || !strings.HasSuffix(c.Reason, "slide 1.034 m per s") {
		t.Errorf("reason %q: want its speeds in m per s, the root's too", c.Reason)
	}
}

// TestPlantNoteSaysWhatHIs: a falls-short note gives its lengths in H and
// says once what H is and how long, in the model's unit (issue 45 round 4,
// 2nd walk, item 6: "by up to 0.037·H" left H unexplained). The Fox, scaled
// to metres, stands 0.79 m tall to its mesh's top; its bones' extent, H, is
// less, and more than half of it. Unscaled, its lengths are units.
func TestPlantNoteSaysWhatHIs(t *testing.T) {
	said := regexp.MustCompile(`which falls short there, in H, the skeleton's height at rest \(([0-9.]+) (m|units)\): b_`)
	for _, c := range []struct {
		scale  float64
		lo, hi float64
		unit   string
	}{{0.01, 0.4, 0.79, "m"}, {0, 40, 79, "units"}} {
		m, err := Load(testfiles.Path(t, "gltf", "Fox.glb"), Settings{Scale: c.scale, PlantFeet: true})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(m.Notes, func(n string) bool {
			return strings.HasPrefix(n, "plant feet: clip Walk: ") && strings.Contains(n, "falls short")
		})
		if i < 0 {
			t.Fatalf("scale %g: no falls-short note for Walk: %q", c.scale, m.Notes)
		}
		g := said.FindStringSubmatch(m.Notes[i])
		if g == nil || strings.Count(m.Notes[i], "H, the") != 1 {
			t.Errorf("scale %g: %q: want H said once, with its length", c.scale, m.Notes[i])
			continue
		}
		if h, _ := strconv.ParseFloat(g[1], 64); h < c.lo || h > c.hi || g[2] != c.unit {
			t.Errorf("scale %g: H %s %s; want %g to %g %s", c.scale, g[1], g[2], c.lo, c.hi, c.unit)
		}
	}
}

// shortParts reads a falls-short note's figures for one foot: how far (in H)
// and in how much of the clip (%) it is short on the ground and in its swing.
var shortParts = regexp.MustCompile(`(on the ground|in its swing) by up to ([0-9.]+)·H in ([0-9]+)% of the clip`)

// TestPlantShortStanceSwing: the note on the Fox's planted Run says how far
// each foot falls short on the ground and in its swing apart, and its front
// paw b_LeftHand_011, short by up to 0.22·H over the clip, is short on the
// ground by little (its gait line says its feet are locked, confidence 0.97:
// a paw off its pin by a fifth of H would slide) and mostly in the swing
// (docs/formats/gait.md §7). The note gave one figure for both, which read as
// a foot 0.22·H off the ground it was said to be locked to.
func TestPlantShortStanceSwing(t *testing.T) {
	m, err := Load(testfiles.Path(t, "gltf", "Fox.glb"), Settings{Scale: 0.01, PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, n := range m.Notes {
		if strings.HasPrefix(n, "plant feet: clip Run: ") && strings.Contains(n, "falls short") {
			note = n
		}
	}
	_, paw, ok := strings.Cut(note, "b_LeftHand_011 ")
	if !ok {
		t.Fatalf("no note names b_LeftHand_011 falling short: %q", m.Notes)
	}
	paw, _, _ = strings.Cut(paw, ", b_")
	got := map[string][2]float64{}
	for _, p := range shortParts.FindAllStringSubmatch(paw, -1) {
		h, _ := strconv.ParseFloat(p[2], 64)
		pc, _ := strconv.ParseFloat(p[3], 64)
		got[p[1]] = [2]float64{h, pc}
	}
	g, s := got["on the ground"], got["in its swing"]
	if s[0] < 0.15 || g[0] > 0.05 || g[1] >= s[1] {
		t.Errorf("b_LeftHand_011: %q: want it short on the ground by 0.05·H at most and less often than in its swing, where it is short by 0.15·H or more", paw)
	}
}

// TestPlantHintPromisesATry: a_biped_walk's plain gait line hints planting
// as a try ("may lock"), not as a promise ("locks", which it did), since
// knowing would take planting it; planted, its feet are locked (its gait line
// says so, and no note leaves it as authored: before its feet, as low
// mid-swing as mid-stance, were told apart by the way they move under the
// body, it was left as authored, docs/formats/gait.md §7). The Fox's Walk,
// whose planting is kept (TestPlantFeet), has the same hint.
func TestPlantHintPromisesATry(t *testing.T) {
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	plain, err := Load(biped, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if line := plain.GaitLine(plain.Gaits("x.bpat").Clips[0]); !strings.HasSuffix(line, "; Settings.PlantFeet may lock them to the ground") {
		t.Errorf("plain: %q: want the hint that planting may lock its feet", line)
	}
	planted, err := Load(biped, Settings{PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range planted.Notes {
		if strings.Contains(n, "left as authored") {
			t.Errorf("planted: note %q: want its feet locked", n)
		}
	}
	if line := planted.GaitLine(planted.Gaits("x.bpat").Clips[0]); !strings.HasSuffix(line, "; feet locked to the ground") {
		t.Errorf("planted: %q: want it to say the feet were locked to the ground", line)
	}
	fox, err := Load(testfiles.Path(t, "gltf", "Fox.glb"), Settings{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fox.Gaits("x.bpat").Clips {
		if c.Name == "Walk" && !strings.HasSuffix(fox.GaitLine(c), "; "+plantHint) {
			t.Errorf("Fox: %q: want the hint", fox.GaitLine(c))
		}
	}
}

// TestBVHHeightsSay: a_biped_walk.bvh's note and summary gave two heights,
// 1.85 and 1.6, unexplained: the note's is its joints' and end sites' at rest
// (the head's end site 0.1 above the head at 1.6, the toes' 0.25 below the
// feet at 0.1: 1.7 − (−0.15)), which the units are guessed from, the
// summary's its joints' alone (0 to 1.6). Each now says which it is.
func TestBVHHeightsSay(t *testing.T) {
	m, err := Load(testfiles.Path(t, "bvh", "a_biped_walk.bvh"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	size := m.Size().String()
	if !strings.HasPrefix(size, "1.6 m tall") || !strings.HasSuffix(size, "(its joints at rest: no mesh)") {
		t.Errorf("size %q: want 1.6 m, the joints' at rest, said so", size)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "1.85 units tall at rest to its end sites") }) {
		t.Errorf("notes %q: want the height 1.85 said to run to the end sites", m.Notes)
	}
}

// TestNoPlantHintWhereNothingMeasured: a clip in which nothing was measured
// (stride's Resized: its body at another size than the rest's, no method)
// has no feet found sliding, and its line hints at no planting; a clip whose
// feet slide still does.
func TestNoPlantHintWhereNothingMeasured(t *testing.T) {
	resized := gait.Clip{Name: "Walk_mixamorig:LeftHandPinky3", Cycle: 1, Status: string(stride.StatusUntrusted),
		Reason: "the clip poses the body at another size than its rest pose"}
	if line := GaitLine(resized); strings.Contains(line, plantHint) {
		t.Errorf("%q: want no hint to plant", line)
	}
	sliding := resized
	sliding.Method = string(stride.MethodFeet)
	if line := GaitLine(sliding); !strings.HasSuffix(line, "; "+plantHint) {
		t.Errorf("%q: want the hint to plant", line)
	}
}

// TestTakeHintOneShot: a_biped_walk.bvh cut after 15 of its 25 frames is a
// take that does not end as it began (a foot stands half a metre off where
// it began); baked as a loop, the default, it measures low, and its gait line
// hints that a take is baked one-shot. The whole cycle, as low, ends as it
// began: no such hint; nor for the take baked one-shot; nor for the cycle
// cut 3 frames short and played at 72 fps, whose seam, 0.09·H, is past
// Reopened, but 0.04 s of motion: a cycle an exporter ended short, not a
// take (stride.TakeGap).
func TestTakeHintOneShot(t *testing.T) {
	whole := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Frames:") })
	if at < 0 || strings.TrimSpace(lines[at]) != "Frames: 25" || !strings.HasPrefix(lines[at+1], "Frame Time:") {
		t.Fatalf("a_biped_walk.bvh: no 'Frames: 25' line, then its frame time")
	}
	dir := t.TempDir()
	cut := func(name string, frames int, frameTime string) string {
		head := slices.Clone(lines[:at+2])
		head[at] = fmt.Sprintf("Frames: %d\n", frames)
		if frameTime != "" {
			head[at+1] = "Frame Time: " + frameTime + "\n"
		}
		path := filepath.Join(dir, name+".bvh")
		if err := os.WriteFile(path, []byte(strings.Join(append(head, lines[at+2:at+2+frames]...), "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	take, short := cut("take", 15, ""), cut("short", 22, "0.0138889")
	const hint = "; its last frame has a foot "
	for _, c := range []struct {
		path  string
		s     Settings
		hints bool
	}{{take, Settings{}, true}, {whole, Settings{}, false}, {take, Settings{OneShot: []string{"take"}}, false}, {short, Settings{}, false}} {
		m, err := Load(c.path, c.s)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Gaits("x.bpat").Clips[0]
		line := m.GaitLine(g)
		if g.Confidence >= stride.Trusted {
			t.Errorf("%s: confidence %.2f: want it low, where a hint may be", filepath.Base(c.path), g.Confidence)
		}
		if got := strings.Contains(line, hint); got != c.hints || c.hints && !strings.HasSuffix(line, ": a take is baked Settings.OneShot take") {
			t.Errorf("%s %v: %q: want the one-shot hint %v", filepath.Base(c.path), c.s.OneShot, line, c.hints)
		}
	}
}
