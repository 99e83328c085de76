package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// BenchmarkBakeMany bakes 100 models (25 copies each of Fox.glb, CesiumMan.gltf,
// RiggedSimple.gltf and SimpleSkin.gltf) with the built binary, side by side in
// each iteration: 100 single 'bonebake bake MODEL -o single/NAME.bpat' commands
// one after another, as a shell loop runs them, then one 'bonebake bake MODELS...
// -o batch/'. It reports both times and their ratio (the goal: batch/single ≤
// 0.5), and checks the batch's files are the single bakes' bytes.
func BenchmarkBakeMany(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "bonebake")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var models []string
	for _, name := range []string{"Fox.glb", "CesiumMan.gltf", "RiggedSimple.gltf", "SimpleSkin.gltf"} {
		src, ok := testfiles.Find("gltf", name)
		if !ok {
			b.Skipf("gltf/%s is not in the test data", name)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		for k := range 25 {
			m := filepath.Join(dir, "models", fmt.Sprintf("m%02d_%s", k, name))
			if err := os.MkdirAll(filepath.Dir(m), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(m, data, 0o644); err != nil {
				b.Fatal(err)
			}
			models = append(models, m)
		}
	}
	var single, batch time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, m := range models {
			if out, err := exec.Command(bin, "bake", m, "-o", filepath.Join(dir, "single", modelName(m)+".bpat")).CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", m, err, out)
			}
		}
		t1 := time.Now()
		if out, err := exec.Command(bin, append(append([]string{"bake"}, models...), "-o", filepath.Join(dir, "batch"))...).CombinedOutput(); err != nil {
			b.Fatalf("batch: %v\n%s", err, out)
		}
		single, batch = single+t1.Sub(t0), batch+time.Since(t1)
	}
	for _, m := range models {
		want, err1 := os.ReadFile(filepath.Join(dir, "single", modelName(m)+".bpat"))
		got, err2 := os.ReadFile(filepath.Join(dir, "batch", modelName(m)+".bpat"))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			b.Fatalf("%s: the batch's file differs from the single bake's (%v, %v)", m, err1, err2)
		}
	}
	n := float64(b.N)
	b.ReportMetric(single.Seconds()*1000/n, "single-ms")
	b.ReportMetric(batch.Seconds()*1000/n, "batch-ms")
	b.ReportMetric(batch.Seconds()/single.Seconds(), "batch/single")
}

// BenchmarkSimulate plays the battle of 'bonebake simulate --units 20000
// --seconds 10' in the process, the built-in species baked once before it, so
// that -cpuprofile shows where the command's time goes (the bone-jump meter is
// jumpMeter.measure):
//
//	go test -run '^$' -bench Simulate -benchtime 6x -cpuprofile cpu.prof ./cmd/bonebake
func BenchmarkSimulate(b *testing.B) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	cfg := simConfig{units: 20000, seconds: 10, dt: 1.0 / 60, seed: 1, workers: goruntime.GOMAXPROCS(0)}
	for b.Loop() {
		if _, err := simulate(cfg, reg); err != nil {
			b.Fatal(err)
		}
	}
}
