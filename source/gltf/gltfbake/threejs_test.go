package gltfbake

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// threejsPeer readies the three.js peer baker (../shared/peers/threejs) in a
// cache folder of its own, installing its pinned three.js with npm once, and
// returns that folder. It skips the test when node or npm cannot run here.
func threejsPeer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the three.js peer runs in the full suite")
	}
	src := testfiles.Peer(t, "threejs")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the three.js peer cannot run")
	}
	return testfiles.NpmCache(t, src, "bonebake-threejs-peer", "bake.mjs", "package.json", "package-lock.json")
}

// threejsPeerWith is threejsPeer with this package's script testdata/NAME
// copied beside the peer's own, so that node runs it with the peer's three.
func threejsPeerWith(t *testing.T, name string) string {
	t.Helper()
	peer := threejsPeer(t)
	script, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(peer, name), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return peer
}

// TestThreejsPeerAgrees bakes the classic samples with bonebake and with three.js
// (GLTFLoader + AnimationMixer, what web viewers and crowd renderers use) and
// requires the same clips, frame counts and palettes: every element within 1e-4,
// translations relative to the skeleton's size. three.js poses joints in the
// scene's space and counts clips from their first key, as bonebake does.
func TestThreejsPeerAgrees(t *testing.T) {
	peer := threejsPeer(t)
	for _, name := range []string{"CesiumMan.gltf", "RiggedSimple.gltf", "Fox.glb"} {
		for _, oneShot := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/one-shot=%v", name, oneShot), func(t *testing.T) {
				path := sharedModel(t, name)
				m, err := Load(path, Settings{FPS: 30})
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(t.TempDir(), "peer.bpat")
				args := []string{"bake.mjs", path, "--fps", "30", "--quiet", "--out", out}
				if oneShot {
					var names []string
					for i := range m.Job.Clips {
						m.Job.Clips[i].Loops = false
						names = append(names, m.Job.Clips[i].Name)
					}
					args = append(args, "--one-shot", strings.Join(names, ","))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "node", args...)
				cmd.Dir = peer
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the three.js peer failed: %v\n%s", err, out)
				}
				want, err := bpat.Open(out, formats.Lenient())
				if err != nil {
					t.Fatal(err)
				}
				defer want.Close()
				b, err := bake.Bytes(m.Job)
				if err != nil {
					t.Fatal(err)
				}
				got, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
				if err != nil {
					t.Fatal(err)
				}
				comparePalettes(t, got, want)
			})
		}
	}
}

// comparePalettes requires the same bones, clips (names, frame counts, loop flags)
// and palettes within 1e-4 (translations relative to the skeleton's size).
func comparePalettes(t *testing.T, got, want *bpat.File) {
	t.Helper()
	gc, wc := got.Clips(), want.Clips()
	if got.BoneCount() != want.BoneCount() || len(gc) != len(wc) {
		t.Fatalf("%d bones %d clips; the peer has %d bones %d clips", got.BoneCount(), len(gc), want.BoneCount(), len(wc))
	}
	size := 1e-3
	for b := range want.BoneCount() {
		p := want.Palette(0, 0)[b*16:]
		size = max(size, math.Sqrt(float64(p[3]*p[3]+p[7]*p[7]+p[11]*p[11])))
	}
	worst := 0.0
	for c := range wc {
		if gc[c].Name != wc[c].Name || gc[c].FrameCount != wc[c].FrameCount || gc[c].Loops != wc[c].Loops {
			t.Fatalf("clip %d: %+v; the peer has %+v", c, gc[c], wc[c])
		}
		for f := range wc[c].FrameCount {
			g, w := got.Palette(c, f), want.Palette(c, f)
			for i := range w {
				d := math.Abs(float64(g[i] - w[i]))
				if k := i % 16; k == 3 || k == 7 || k == 11 {
					d /= size
				}
				worst = max(worst, d)
				if d > 1e-4 {
					t.Fatalf("clip %q frame %d bone %d element %d: %v; the peer has %v", wc[c].Name, f, i/16, i%16, g[i], w[i])
				}
			}
		}
	}
	t.Logf("worst difference %.2g (translations relative to the skeleton's size %.3g)", worst, size)
}
