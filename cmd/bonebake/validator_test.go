package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// gltfValidatorVersion is the Khronos glTF validator (npm gltf-validator) the
// tests check every glTF bonebake writes with.
const gltfValidatorVersion = "2.0.0-dev.3.10"

// khronosValidate runs the Khronos glTF validator on files and requires zero
// errors and zero warnings in each. It installs the validator with npm once, into
// a cache folder, and skips when node or npm cannot.
func khronosValidate(t *testing.T, files ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the glTF validator runs in the full suite")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node: the Khronos glTF validator cannot run")
	}
	dir := filepath.Join(os.TempDir(), "bonebake-gltf-validator-"+gltfValidatorVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "gltf-validator", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "gltf-validator@"+gltfValidatorVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm could not install gltf-validator (%v): %s", err, out)
		}
	}
	script, err := os.ReadFile(filepath.Join("testdata", "gltf_validate.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "validate.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(dir, "validate.mjs")}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, abs)
	}
	out, err := exec.Command("node", args...).Output()
	if err != nil {
		t.Fatalf("the validator failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("the validator reported on %d of %d files:\n%s", len(lines), len(files), out)
	}
	for _, line := range lines {
		var r struct {
			File     string   `json:"file"`
			Errors   int      `json:"errors"`
			Warnings int      `json:"warnings"`
			Messages []string `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.Errors != 0 || r.Warnings != 0 {
			t.Errorf("%s: %d errors, %d warnings: %v", r.File, r.Errors, r.Warnings, r.Messages)
		} else {
			t.Logf("%s: valid", r.File)
		}
	}
}

// Every glTF bonebake writes passes the Khronos validator with no error and no
// warning: export-gltf, bake --mot --gltf, and the mesh of bat.
func TestWrittenGLTFValidates(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"horse", "humanoid"} {
		glb := filepath.Join(dir, name+".glb")
		if code, _, errOut := bonebake(t, "export-gltf", name, "-o", glb); code != 0 {
			t.Fatal(errOut)
		}
		files = append(files, glb)
	}
	gl := filepath.Join(dir, "humanoid.gltf")
	if code, _, errOut := bonebake(t, "export-gltf", "humanoid", "-o", gl); code != 0 {
		t.Fatal(errOut)
	}
	files = append(files, gl)
	fox := sharedModel(t, "Fox.glb")
	if code, _, errOut := bonebake(t, "bat", fox, "-o", filepath.Join(dir, "bat")); code != 0 {
		t.Fatal(errOut)
	}
	files = append(files, filepath.Join(dir, "bat", "Fox.glb"))
	if mot, ok := testfiles.Find("mot", "pl000f_0a25.wiiu-be.mot"); ok {
		glb := filepath.Join(dir, "mot.glb")
		// --force: RiggedSimple carries 2 of the motion's 91 bones.
		if code, _, errOut := bonebake(t, "bake", "--mot", mot, "--rig", sharedModel(t, "RiggedSimple.gltf"), "-o", filepath.Join(dir, "mot.bpat"), "--gltf", glb, "--force"); code != 0 {
			t.Fatal(errOut)
		}
		files = append(files, glb)
	}
	khronosValidate(t, files...)
}
