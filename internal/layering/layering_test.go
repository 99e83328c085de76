// Package layering holds the test that pins docs/ARCHITECTURE.md's floors: a
// package imports only from the floors below it, and nothing online (crowd)
// imports anything offline; and that the table's "imports (in the module)" column
// says what each package imports, within its floor, and that each function
// its walks of a bake and of a viewer step name is declared in the file they
// name (table_test.go).
package layering

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// allowed lists, per package (a path, or a prefix ending in "/"), the module's
// packages it may import (same forms). Floors, bottom up: formats, roster and
// internal mechanics; rig; anim and mesh; the sources' readers (source/gltf);
// the engine (bake), which imports no source and no species; the adapters that
// turn each source into a bake.Job (source/gltf/gltfbake, source/mot, species
// and the built-in creatures above it); the offline tools (bat, pack); the
// runtime (crowd); the viewer and the CLI.
var allowed = map[string][]string{
	"formats":              {"formats/internal/", "internal/atomicfile", "internal/regfile"},
	"formats/":             {"formats", "formats/", "internal/atomicfile", "internal/regfile", "internal/words"}, // words: a limit said in MB, as every report says it
	"roster":               {},
	"internal/":            {},
	"internal/atomicfile":  {"internal/regfile"},    // a file's type named in words, one way
	"internal/iopath":      {"internal/atomicfile"}, // a file to write checked as atomicfile will write it
	"internal/yamlread":    {"internal/words"},      // an unknown key with the keys near it, one way
	"rig":                  {},
	"anim":                 {"rig"},
	"mesh":                 {"rig"},
	"mesh/simplify":        {"mesh", "rig"},
	"stride":               {"rig"},
	"source/":              {"source/", "rig", "anim", "mesh", "internal/atomicfile", "internal/regfile", "internal/words"},
	"source/bvh":           {"source/gltf", "formats", "formats/bvh", "rig", "anim", "internal/regfile", "stride"},      // BVH as the Model and ClipFile source/gltf gives
	"source/fbx":           {"formats/fbx", "source/gltf", "rig", "anim", "mesh", "internal/regfile", "internal/words"}, // FBX likewise
	"source/gltf/gltfbake": {"bake", "anim", "formats", "formats/bpat", "formats/bpsm", "formats/gait", "internal/words", "internal/yamlread", "mesh", "mesh/simplify", "rig", "roster", "source/gltf", "source/bvh", "source/fbx", "stride", "internal/atomicfile", "internal/iopath", "internal/regfile"},
	"source/mot":           {"bake", "formats", "formats/bpat", "formats/mot", "internal/yamlread", "rig", "roster", "source/gltf", "source/gltf/gltfbake", "internal/atomicfile", "internal/regfile"},
	"species":              {"bake", "formats", "formats/bpat", "formats/bpsm", "internal/atomicfile", "internal/words", "mesh", "mesh/simplify", "rig", "roster", "source/gltf"},
	"species/":             {"species", "species/", "bake", "rig", "mesh", "mesh/simplify", "roster", "formats/bpat"},
	"bake":                 {"formats", "formats/", "internal/atomicfile", "rig", "anim", "mesh"}, // the engine: no source, no species
	"bat":                  {"bake", "formats/", "internal/atomicfile", "rig", "mesh", "species", "source/"},
	"pack":                 {"bake", "formats", "formats/", "internal/atomicfile", "internal/words", "rig", "mesh", "species", "roster", "internal/regfile"},
	"crowd":                {"crowd/", "formats", "formats/bpat", "formats/bpsm", "formats/gait", "roster", "internal/regfile"},
	"crowd/":               {"crowd", "crowd/", "formats", "formats/bpat", "formats/bpsm", "formats/gait", "roster", "internal/regfile"},
	"viewer":               {"bat", "crowd", "crowd/", "formats", "formats/bpat", "js/bonebake-three", "mesh", "roster", "source/", "species", "internal/regfile", "internal/words"},
	"cmd/":                 {""}, // the command line uses everything
	"internal/layering":    {},
	"js/":                  {}, // the npm packages' embedded files and Go test drivers: they import nothing
	"internal/testfiles":   {},

	// A benchmark's input written to disk for timing whole commands.
	"internal/bench/mixedtree": {"internal/testfiles"},
}

// rule returns the entry of allowed that governs pkg: its own, else the longest
// prefix.
func rule(pkg string) ([]string, bool) {
	if r, ok := allowed[pkg]; ok {
		return r, true
	}
	best := ""
	for k := range allowed {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(pkg, k) && len(k) > len(best) {
			best = k
		}
	}
	r, ok := allowed[best]
	return r, ok && best != ""
}

func permits(r []string, imp string) bool {
	for _, a := range r {
		if a == imp || (strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a)) || a == "" {
			return true
		}
	}
	return false
}

func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "github.com/bonebake/bonebake/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/bonebake/bonebake/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, mod)
		r, ok := rule(pkg)
		if !ok {
			t.Errorf("%s: no floor in docs/ARCHITECTURE.md's table: add it there and to this test", pkg)
			continue
		}
		for _, imp := range strings.Fields(imps) {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if imp = strings.TrimPrefix(imp, mod); !permits(r, imp) {
				t.Errorf("%s imports %s, which its floor does not allow (docs/ARCHITECTURE.md)", pkg, imp)
			}
		}
	}
}

// TestEngineKnowsNoSource: bake, the engine, depends on no source and no
// species, not even through another package (docs/ARCHITECTURE.md): each
// source's adapter imports bake, never the reverse.
func TestEngineKnowsNoSource(t *testing.T) {
	r, _ := rule("bake")
	for _, imp := range []string{"source/gltf", "source/gltf/gltfbake", "source/mot", "species", "species/creatures"} {
		if permits(r, imp) {
			t.Errorf("the rule for bake allows %s", imp)
		}
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/bonebake/bonebake/bake").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/bonebake/bonebake/"
	for _, dep := range strings.Fields(string(out)) {
		if p := strings.TrimPrefix(dep, mod); p != dep && (strings.HasPrefix(p, "source/") || p == "species" || strings.HasPrefix(p, "species/")) {
			t.Errorf("bake depends on %s", p)
		}
	}
}

// A game's own module imports bonebake by its path, with a replace for a local
// checkout, as the README says: that builds and runs.
func TestDependedOnByPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside this one")
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module example.com/game\n\ngo 1.26\n\nrequire github.com/bonebake/bonebake v0.0.0\n\nreplace github.com/bonebake/bonebake => " + strings.TrimSpace(string(root)) + "\n"
	main := `package main

import (
	"fmt"

	"github.com/bonebake/bonebake/crowd"
)

func main() {
	c := crowd.New(2)
	fmt.Println(len(c.Species))
}
`
	for name, text := range map[string]string{"go.mod": mod, "main.go": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Skipf("go mod tidy (the module proxy may be out of reach): %v\n%s", err, out)
	}
	run := exec.Command("go", "run", ".")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Fatalf("a game importing github.com/bonebake/bonebake/crowd: %v\n%s", err, out)
	}
}
