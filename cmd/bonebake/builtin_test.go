package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
)

var builtinOutputs = []string{"humanoid.bpat", "horse.bpat", "horse_minimal.bpsm", "elephant.bpat", "elephant_minimal.bpsm",
	"humanoid_sword.bpat", "humanoid_spear.bpat", "humanoid_skeleton.bpat"}

// TestBakeBuiltins runs `bonebake bake` with no model, as the README's quick start
// does: every file is written, passes strict validation, and a second bake with a
// different GOMAXPROCS gives the same bytes.
func TestBakeBuiltins(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		code, stdout, stderr := bonebake(t, "bake", "--out", dirs[i])
		runtime.GOMAXPROCS(old)
		if code != 0 {
			t.Fatalf("bake: exit %d: %s%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "baked 6 creatures") {
			t.Fatalf("output: %s", stdout)
		}
	}
	for _, name := range builtinOutputs {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between GOMAXPROCS 1 and 2", name)
		}
		if strings.HasSuffix(name, ".bpat") {
			f, err := bpat.Parse(a)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if f.Header().Version != 2 {
				t.Errorf("%s: version %d, want 2 (markers)", name, f.Header().Version)
			}
			continue
		}
		f, err := bpsm.Parse(a)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := f.CheckVertices(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if code, _, _ := bonebake(t, "bake", "--species", "horse,unicorn", "--out", dirs[0]); code != 2 {
		t.Errorf("unknown species: exit %d, want 2", code)
	}
	if code, _, _ := bonebake(t, "bake", "--fps", "60"); code != 2 {
		t.Errorf("--fps without a model: exit %d, want 2", code)
	}
}

// TestExportGLTFRoundTrip: export-gltf then bake the file gives the built-in bake's
// clips and palettes back (within 1e-4).
func TestExportGLTFRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"horse", "humanoid_spear"} {
		glb := filepath.Join(dir, name+".glb")
		if code, out, errOut := bonebake(t, "export-gltf", name, "-o", glb); code != 0 {
			t.Fatalf("export-gltf: %s%s", out, errOut)
		}
		direct, back := filepath.Join(dir, name+".bpat"), filepath.Join(dir, name+"_rt.bpat")
		if code, out, errOut := bonebake(t, "bake", "--species", name, "--out", dir); code != 0 {
			t.Fatalf("bake: %s%s", out, errOut)
		}
		if code, out, errOut := bonebake(t, "bake", glb, "-o", back); code != 0 {
			t.Fatalf("bake %s: %s%s", glb, out, errOut)
		}
		samePalettes(t, direct, back, 1e-4)
	}
}

// samePalettes requires two BPAT files to have the same header and clips and
// palettes within tol, element by element.
func samePalettes(t *testing.T, pathA, pathB string, tol float64) {
	t.Helper()
	a, err := bpat.Open(pathA, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := bpat.Open(pathB, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Header() != b.Header() {
		t.Fatalf("headers differ:\n%+v\n%+v", a.Header(), b.Header())
	}
	for c, cl := range a.Clips() {
		if b.Clips()[c] != cl {
			t.Fatalf("clip %d: %+v vs %+v", c, b.Clips()[c], cl)
		}
		for fr := 0; fr < cl.FrameCount; fr++ {
			pa, pb := a.Palette(c, fr), b.Palette(c, fr)
			for i := range pa {
				if math.Abs(float64(pa[i]-pb[i])) > tol {
					t.Fatalf("%s frame %d float %d: %v vs %v", cl.Name, fr, i, pa[i], pb[i])
				}
			}
		}
	}
}
