package gltfbake

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// threeName is a bone's name as three.js binds it
// (PropertyBinding.sanitizeNodeName): blanks become '_' and the characters a
// track path reserves (: . [ ] /) are dropped, so "mixamorig:Hips" is
// "mixamorigHips".
func threeName(s string) string {
	s = regexp.MustCompile(`\s`).ReplaceAllString(s, "_")
	return regexp.MustCompile(`[\[\]\.:/]`).ReplaceAllString(s, "")
}

// TestFBXThreejsPeerAgrees reads the Mixamo files with three.js's FBXLoader
// and plays their clip with AnimationMixer, frame by frame at the times
// bonebake bakes: every palette entry (the joint's world matrix) agrees within
// 1e-4, translations relative to the character's height, and so does every
// vertex skinned at rest. three.js leaves the file's centimetres as they are
// (UnitScaleFactor goes to userData) and the files are Y-up, so its values
// are taken to metres by the same factor bonebake applies (docs/formats/fbx.md
// §6). Both apply FBX's full transform rule (§7) with pre-rotations in XYZ;
// three.js samples rotations by slerping quaternions of each key's Euler
// angles, bonebake the angles at the frame rate: at the keys (every frame of
// these files) they meet.
func TestFBXThreejsPeerAgrees(t *testing.T) {
	peer := threejsPeerWith(t, "fbx_peer.mjs")
	for _, name := range []string{"mixamo.fbx", "Samba_Dancing.fbx"} {
		t.Run(name, func(t *testing.T) {
			path := testfiles.Path(t, "fbx", name)
			m, err := Load(path, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			got, _, mo, times := bakeFirstClip(t, m)
			// three.js names the clip as the stack is; bonebake after the file
			// (docs/formats/gltf.md §3).
			const take = "mixamo.com"
			args := append([]string{"fbx_peer.mjs", path, take}, times...)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", args...)
			cmd.Dir = peer
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the three.js peer failed: %v", err)
			}
			var res struct {
				Names []string
				Clips []struct {
					Name     string
					Duration float64
				}
				Unit   float64
				Rest   []float64
				Frames [][][16]float64
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatal(err)
			}
			toMetres := res.Unit / 100
			// The clip: three.js's duration is its last key's time, as bonebake's.
			var dur float64 = -1
			for _, c := range res.Clips {
				if c.Name == take {
					dur = c.Duration
				}
			}
			if math.Abs(dur-(mo.Duration-mo.Start)) > 1e-4 {
				t.Errorf("three.js's %q lasts %v s; bonebake's %v s", take, dur, mo.Duration-mo.Start)
			}
			byName := map[string]int{}
			for i, n := range res.Names {
				byName[n] = i
			}
			skel := m.Job.Rig.Skeleton
			height := m.Size().Extent()[1] // the character's height (its rest mesh along +y)
			if height <= 0 {
				t.Fatalf("height %v", height)
			}
			worst := 0.0
			for p, bone := range m.Job.Rig.Bones {
				j, ok := byName[threeName(skel.Names[bone])]
				if !ok {
					t.Fatalf("three.js has no bone %q", threeName(skel.Names[bone]))
				}
				for f := range res.Frames {
					w := res.Frames[f][j]
					pal := got.Palette(0, f)
					for i := range 12 {
						want := w[i]
						d := math.Abs(float64(pal[p*16+i]) - want)
						if i == 3 || i == 7 || i == 11 {
							d = math.Abs(float64(pal[p*16+i])-want*toMetres) / height
						}
						worst = max(worst, d)
						if d > 1e-4 {
							t.Fatalf("frame %d joint %s element %d: %v; three.js has %v (×%g)", f, skel.Names[bone], i, pal[p*16+i], want, toMetres)
						}
					}
				}
			}
			// The rest mesh: three.js's vertices (one per polygon corner) and
			// bonebake's (one per distinct corner) are the same set of points.
			restWorst := restSetsAgree(t, m.GLTF.Mesh.Positions, res.Rest, toMetres, height)
			t.Logf("%d frames × %d joints, worst difference %.2g (translations relative to %.3g m); rest vertices within %.2g of the height", len(res.Frames), len(m.Job.Rig.Bones), worst, height, restWorst)
		})
	}
}

// restSetsAgree requires every three.js vertex (flat x y z, scaled by k) to
// have a bonebake vertex within 1e-4·height and the reverse, found through a
// grid of cells of that size; it returns the largest distance, over the height.
func restSetsAgree(t *testing.T, ours [][3]float32, theirs []float64, k, height float64) float64 {
	t.Helper()
	tol := 1e-4 * height
	type cell [3]int64
	key := func(p [3]float64) cell {
		return cell{int64(math.Floor(p[0] / tol)), int64(math.Floor(p[1] / tol)), int64(math.Floor(p[2] / tol))}
	}
	grid := func(ps [][3]float64) map[cell][]int {
		g := map[cell][]int{}
		for i, p := range ps {
			g[key(p)] = append(g[key(p)], i)
		}
		return g
	}
	a := make([][3]float64, len(ours))
	for i, p := range ours {
		a[i] = [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	b := make([][3]float64, len(theirs)/3)
	for i := range b {
		b[i] = [3]float64{theirs[3*i] * k, theirs[3*i+1] * k, theirs[3*i+2] * k}
	}
	worst := 0.0
	check := func(from, to [][3]float64, what string) {
		g := grid(to)
		for i, p := range from {
			c := key(p)
			best := math.Inf(1)
			for dx := int64(-1); dx <= 1; dx++ {
				for dy := int64(-1); dy <= 1; dy++ {
					for dz := int64(-1); dz <= 1; dz++ {
						for _, j := range g[cell{c[0] + dx, c[1] + dy, c[2] + dz}] {
							q := to[j]
							best = min(best, math.Sqrt((p[0]-q[0])*(p[0]-q[0])+(p[1]-q[1])*(p[1]-q[1])+(p[2]-q[2])*(p[2]-q[2])))
						}
					}
				}
			}
			if best > tol {
				t.Fatalf("%s vertex %d at %v has no counterpart within %.3g m", what, i, p, tol)
			}
			worst = max(worst, best/height)
		}
	}
	check(b, a, "three.js's")
	check(a, b, "bonebake's")
	return worst
}

// bakeFirstClip bakes m and returns the file, its first clip, that clip's
// motion and the source times of the clip's frames, as the peers' scripts take
// them (the bake's own frame times, formatted exactly).
func bakeFirstClip(t *testing.T, m *Model) (*bpat.File, bpat.Clip, bake.Motion, []string) {
	t.Helper()
	b, err := bake.Bytes(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	clip := got.Clips()[0]
	mo := m.Job.Motions[m.Job.Clips[0].Motion]
	var times []string
	for f := range int(clip.FrameCount) {
		times = append(times, strconv.FormatFloat(mo.Start+bake.FrameTime(f, int(clip.FrameCount), mo.Duration-mo.Start, clip.Loops), 'g', -1, 64))
	}
	return got, clip, mo, times
}
