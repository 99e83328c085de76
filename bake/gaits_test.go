package bake

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/species/creatures"
)

// TestBuiltinGaitsMeasured exports each built-in creature to glTF (which carries
// no speeds), bakes it back and checks the measured ground speeds against the
// roster's table (docs/species.md §1), the external reference: within 5 % for
// every locomotion clip, and no speed for every clip the table plays in place.
func TestBuiltinGaitsMeasured(t *testing.T) {
	names := []string{"humanoid", "horse", "elephant"}
	if !testing.Short() {
		names = append(names, "humanoid_sword", "humanoid_spear", "humanoid_skeleton")
	}
	dir := t.TempDir()
	for _, name := range names {
		s := creatures.ByName(name)
		path := filepath.Join(dir, name+".glb")
		if err := gltf.WriteFile(path, ExportSpecies(s)); err != nil {
			t.Fatal(err)
		}
		m, err := LoadModel(path, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Gaits(filepath.Join(dir, name+".bpat"))
		def, _ := roster.ByName(name)
		for _, c := range f.Clips {
			want := def.Gait(c.Name)
			if want.Cycle > 0 && math.Abs(c.Cycle-want.Cycle) > 1e-4 {
				t.Errorf("%s %s: cycle %v, want the table's %v", name, c.Name, c.Cycle, want.Cycle)
			}
			switch {
			case want.Speed > 0:
				if c.GroundSpeedSource != gait.SourceMeasured || math.Abs(c.GroundSpeed-want.Speed) > 0.05*want.Speed {
					t.Errorf("%s %s: %+v, want %v m/s measured within 5%%", name, c.Name, c, want.Speed)
				}
				t.Logf("%s %s: measured %.4g m/s (table %v) from %s, confidence %.2f", name, c.Name, c.GroundSpeed, want.Speed, c.Method, c.Confidence)
			case c.GroundSpeed != 0:
				t.Errorf("%s %s: %+v: the table plays it in place, want no speed", name, c.Name, c)
			}
		}
	}
}

// synthGLTF writes, as raw glTF JSON with no help from bonebake, a biped whose
// feet are planted for 60 % of a 1 s cycle and slide back at 1.4 m/s while they
// are (in place), or stand still while the root travels forward at 1.4 m/s
// (root motion: relative to the root they slide back as in place). Bones: Root, Pelvis, FootL, FootR; keys every 1/60 s.
func synthGLTF(t *testing.T, rootMotion bool) string {
	const (
		v, keys, stance = 1.4, 60, 0.6
	)
	var times, root, pelvis, footL, footR []float32
	foot := func(q float64) (z, y float64) {
		q -= math.Floor(q)
		if q < stance {
			return v*stance/2 - v*q, 0.08
		}
		u := (q - stance) / (1 - stance)
		return -v*stance/2 + v*stance*u*u*(3-2*u), 0.08 + 0.12*math.Sin(math.Pi*u)
	}
	for k := 0; k <= keys; k++ {
		tt := float64(k) / keys
		times = append(times, float32(tt))
		travel := 0.0
		if rootMotion {
			travel = v * tt
		}
		root = append(root, 0, 0, float32(travel))
		pelvis = append(pelvis, 0, 1, 0)
		for s, dst := range []*[]float32{&footL, &footR} {
			z, y := foot(tt + 0.5*float64(s))
			x := 0.1 - 0.2*float64(s)
			*dst = append(*dst, float32(x), float32(y-1), float32(z))
		}
	}
	var buf []byte
	view := func(fs []float32) (off, n int) {
		off = len(buf)
		for _, f := range fs {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		return off, len(buf) - off
	}
	type acc struct {
		off, n, count int
		typ           string
		min, max      string
	}
	var accs []acc
	add := func(fs []float32, typ string) int {
		off, n := view(fs)
		c := len(fs)
		if typ == "VEC3" {
			c /= 3
		}
		a := acc{off: off, n: n, count: c, typ: typ}
		if typ == "SCALAR" {
			a.min, a.max = fmt.Sprint(fs[0]), fmt.Sprint(fs[len(fs)-1])
		}
		accs = append(accs, a)
		return len(accs) - 1
	}
	tIn := add(times, "SCALAR")
	chans := ""
	samplers := ""
	for i, tr := range [][]float32{root, pelvis, footL, footR} {
		o := add(tr, "VEC3")
		if i > 0 {
			chans += ","
			samplers += ","
		}
		chans += fmt.Sprintf(`{"sampler":%d,"target":{"node":%d,"path":"translation"}}`, i, i)
		samplers += fmt.Sprintf(`{"input":%d,"output":%d,"interpolation":"LINEAR"}`, tIn, o)
	}
	var views, accJSON []string
	for i, a := range accs {
		views = append(views, fmt.Sprintf(`{"buffer":0,"byteOffset":%d,"byteLength":%d}`, a.off, a.n))
		mm := ""
		if a.min != "" {
			mm = fmt.Sprintf(`,"min":[%s],"max":[%s]`, a.min, a.max)
		}
		accJSON = append(accJSON, fmt.Sprintf(`{"bufferView":%d,"componentType":5126,"count":%d,"type":"%s"%s}`, i, a.count, a.typ, mm))
	}
	doc := fmt.Sprintf(`{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"name":"Root","children":[1]},{"name":"Pelvis","translation":[0,1,0],"children":[2,3]},
{"name":"FootL","translation":[0.1,-0.92,0]},{"name":"FootR","translation":[-0.1,-0.92,0]}],
"skins":[{"joints":[0,1,2,3]}],
"animations":[{"name":"Walk","channels":[%s],"samplers":[%s]}],
"buffers":[{"byteLength":%d,"uri":"data:application/octet-stream;base64,%s"}],
"bufferViews":[%s],"accessors":[%s]}`, chans, samplers, len(buf), base64.StdEncoding.EncodeToString(buf),
		strings.Join(views, ","), strings.Join(accJSON, ","))
	path := filepath.Join(t.TempDir(), "walker.gltf")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSyntheticWalkerGLTF: a biped walking at 1.4 m/s, in place and with root
// motion, measures within 2 %; --in-place removes the root's travel from the
// baked palettes and keeps the speed.
func TestSyntheticWalkerGLTF(t *testing.T) {
	for _, c := range []struct {
		rootMotion, inPlace bool
		method              string
	}{{false, false, "feet"}, {true, false, "root_motion"}, {true, true, "root_motion"}} {
		path := synthGLTF(t, c.rootMotion)
		m, err := LoadModel(path, Settings{InPlace: c.inPlace})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Gaits("walker.bpat")
		w, _ := f.Clip("Walk")
		if w.GroundSpeedSource != gait.SourceMeasured || w.Method != c.method || math.Abs(w.GroundSpeed-1.4) > 0.02*1.4 || w.InPlace != c.inPlace {
			t.Errorf("root motion %v, in place %v: %+v, want 1.4 m/s from %s within 2%%", c.rootMotion, c.inPlace, w, c.method)
		}
		if strings.Join(f.Feet, ",") != "FootL,FootR" || f.RootBone != "Pelvis" {
			t.Errorf("feet %v root %s", f.Feet, f.RootBone)
		}
		b, err := Bytes(m.Job)
		if err != nil {
			t.Fatal(err)
		}
		bf, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
		if err != nil {
			t.Fatal(err)
		}
		n := bf.Clips()[0].FrameCount
		first, last := bf.Palette(0, 0), bf.Palette(0, n-1)
		travel := float64(last[11] - first[11]) // the root's z (row-major translation)
		want := 0.0
		if c.rootMotion && !c.inPlace {
			want = 1.4 * float64(n-1) / float64(n)
		}
		if math.Abs(travel-want) > 1e-3 {
			t.Errorf("root motion %v, in place %v: the root travels %.4f m over the baked frames, want %.4f", c.rootMotion, c.inPlace, travel, want)
		}
	}
}

// TestGaitManifestKeys: a manifest's in_place, cycle, ground_speed, feet and
// root_bone reach the sidecar; a bad value or bone is refused.
func TestGaitManifestKeys(t *testing.T) {
	path := synthGLTF(t, true)
	dir := t.TempDir()
	read := func(yaml string) (*Manifest, error) {
		p := filepath.Join(dir, "m.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return ReadManifest(p)
	}
	mf, err := read("feet: [FootR]\nroot_bone: Root\nclips:\n  - name: walk\n    source: Walk\n    in_place: true\n    cycle: 0.5\n  - name: fast\n    source: Walk\n    ground_speed: 3\n")
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(path, Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Gaits("x.bpat")
	w, _ := f.Clip("walk")
	if !w.InPlace || w.Cycle != 0.5 || math.Abs(w.GroundSpeed-2.8) > 0.02*2.8 || w.GroundSpeedSource != gait.SourceMeasured {
		t.Errorf("walk: %+v, want in place, 1.4 m per 0.5 s cycle = 2.8 m/s measured", w)
	}
	if fast, _ := f.Clip("fast"); fast.InPlace || fast.GroundSpeed != 3 || fast.GroundSpeedSource != gait.SourceManifest {
		t.Errorf("fast: %+v, want 3 m/s from the manifest, not in place", fast)
	}
	if strings.Join(f.Feet, ",") != "FootR" || f.FeetFrom != "given" || f.RootBone != "Root" {
		t.Errorf("feet %v from %s, root %s", f.Feet, f.FeetFrom, f.RootBone)
	}
	if mf, err := read("clips:\n  - name: walk\n    source: Walk\n    cycle: -1\n"); err == nil {
		if _, err = LoadModel(path, Settings{Manifest: mf}); err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("negative cycle: %v", err)
		}
	}
	var se *SettingError
	if _, err := LoadModel(path, Settings{Feet: []string{"Paw"}}); !errors.As(err, &se) || se.Setting != "feet" {
		t.Errorf("unknown foot: %v", err)
	}
}
