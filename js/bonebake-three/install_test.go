package bonebakethree

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/internal/chromiumtest"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestPackInstall: the package, packed as npm packs it, installs into a fresh
// project beside three.js (test/install's lock: three as package.json pins
// it, @types/three, TypeScript), and there
//   - node imports both entry points, and the core reads a BPAT file that
//     formats/bpat wrote;
//   - tsc (strict; skipLibCheck, as tsc --init and bundlers' templates set
//     it) accepts test/install/check.ts, which uses the API and expects its
//     misuses refused, and a file naming every export node found (so none
//     lacks a declaration);
//   - in headless Chromium (when there is one), the README's "three.js"
//     page, as written there (its import map, its main.js with N = 100),
//     draws a crowd.
//
// Full suite only; the packages come from npm's cache (NpmCache puts them
// there), so the install needs no network; it skips without node or npm.
func TestPackInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("npm pack and install run in the full suite")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	testfiles.NpmCache(t, "test/install", "bonebake-three-install", "package.json", "package-lock.json")
	var lock, pkg struct{ DevDependencies map[string]string }
	readJSON(t, filepath.Join("test", "install", "package.json"), &lock)
	readJSON(t, "package.json", &pkg)
	if lock.DevDependencies["three"] != pkg.DevDependencies["three"] {
		t.Fatalf("test/install installs three %s; package.json pins %s", lock.DevDependencies["three"], pkg.DevDependencies["three"])
	}
	dir := t.TempDir()
	run := func(in, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = in
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tgz := run(here, "npm", "pack", "--pack-destination", dir, "--loglevel=error")
	project := filepath.Join(dir, "game")
	writeFile(t, filepath.Join(project, "package.json"), `{"name":"game","version":"1.0.0","type":"module","private":true}`)
	install := []string{"install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", filepath.Join(dir, filepath.Base(tgz))}
	for name, version := range lock.DevDependencies {
		install = append(install, name+"@"+version)
	}
	run(project, "npm", install...)

	fixtures := t.TempDir()
	writeFixtures(t, fixtures)
	got := run(project, node, "--input-type=module", "-e", `
		import { readFileSync } from 'node:fs';
		const core = await import('bonebake-three/core');
		const three = await import('bonebake-three');
		const f = core.parseBPAT(readFileSync(process.argv[1]), { name: 'fixture.bpat' });
		console.log(JSON.stringify({
			read: [f.boneCount, ...f.clips.map((c) => c.name), typeof three.BonebakeCrowd, 'BonebakeCrowd' in core].join(' '),
			core: Object.keys(core), three: Object.keys(three),
		}));`, filepath.Join(fixtures, "fixture.bpat"))
	var exports struct {
		Read        string
		Core, Three []string
	}
	if err := json.Unmarshal([]byte(got), &exports); err != nil {
		t.Fatalf("node in the fresh project: %v: %s", err, got)
	}
	// The fixture has 3 bones and the clips walk and strike (writeFixtures).
	if exports.Read != "3 walk strike function false" {
		t.Errorf("in a fresh project the package says %q; want the BPAT's bones and clips, the binding's BonebakeCrowd, and no three.js in the core", exports.Read)
	}

	// Every export node found, named in TypeScript: an undeclared one fails tsc.
	var ts strings.Builder
	ts.WriteString("import * as core from 'bonebake-three/core';\nimport * as three from 'bonebake-three';\nexport const all: unknown[] = [\n")
	for _, e := range []struct {
		module string
		names  []string
	}{{"core", exports.Core}, {"three", exports.Three}} {
		sort.Strings(e.names)
		for _, n := range e.names {
			fmt.Fprintf(&ts, "  %s.%s,\n", e.module, n)
		}
	}
	ts.WriteString("];\n")
	writeFile(t, filepath.Join(project, "exports.ts"), ts.String())
	for _, f := range []string{"check.ts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("test", "install", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(project, f), string(b))
	}
	run(project, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")

	t.Run("readme", func(t *testing.T) { testReadmePage(t, project) })
}

// testReadmePage writes the README's page (section "three.js", step 3: its
// index.html and main.js, with N = 100 for SwiftShader's sake) into project
// beside the baked Soldier, opens it in headless Chromium and looks for the
// crowd: 100 soldiers some 13 pixels tall (1.8 m, 65 m away, 50° across the
// window's height) and a few wide on a picture that is otherwise its sky.
func testReadmePage(t *testing.T, project string) {
	html, js := readmeBlocks(t)
	if !strings.Contains(js, "const N = 1000;") {
		t.Fatalf("the README's main.js has no `const N = 1000;` for the test to lower")
	}
	js = strings.Replace(js, "const N = 1000;", "const N = 100;", 1) + "\nwindow.readmeReady = true;\n"
	// The page's errors, where the test can read them.
	html = `<script>addEventListener('error', (e) => { window.readmeError = String(e.message); }); addEventListener('unhandledrejection', (e) => { window.readmeError = String(e.reason); });</script>` + "\n" + html
	writeFile(t, filepath.Join(project, "index.html"), html)
	writeFile(t, filepath.Join(project, "main.js"), js)
	if chromiumtest.Chromium() == "" {
		t.Skip("no chromium to draw the README's page with")
	}
	bakedSoldier(t)
	for to, from := range map[string]string{"Soldier.glb": soldier.glb, "soldier.bpat": filepath.Join(soldier.dir, "soldier.bpat"), "soldier.gait.json": filepath.Join(soldier.dir, "soldier.gait.json")} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(project, to), string(b))
	}
	ctx := openWith(t, page{path: "index.html", ready: "readmeReady", failed: "readmeError", root: project, three: func(testing.TB) string { return project }})
	// The sky, 0x8fa5b8, is what the page clears to.
	crowd := screenPixels(t, ctx, "readme.png", func(r, g, b uint32) bool {
		return absDiff(r, 0x8f)+absDiff(g, 0xa5)+absDiff(b, 0xb8) > 30
	})
	t.Logf("%v pixels not sky", crowd)
	if crowd < 300 {
		t.Errorf("%v pixels not sky: the README's page drew no crowd (100 soldiers cover some 10 pixels each)", crowd)
	}
}

// readmeBlocks returns the README's "three.js" section's html and js code
// blocks, unindented.
func readmeBlocks(t *testing.T) (html, js string) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\n## three.js\n")
	if start < 0 {
		t.Fatal(`README.md has no section "## three.js"`)
	}
	s = s[start+1:]
	if end := strings.Index(s, "\n## "); end >= 0 {
		s = s[:end]
	}
	block := func(lang string) string {
		m := regexp.MustCompile("(?s)\n( *)```" + lang + "\n(.*?)\n *```\n").FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("the README's three.js section has no %s block", lang)
		}
		return regexp.MustCompile("(?m)^"+m[1]).ReplaceAllString(m[2], "") + "\n"
	}
	return block("html"), block("js")
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
