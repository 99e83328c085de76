package viewer

import (
	"bytes"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	bonebakethree "github.com/bonebake/bonebake/js/bonebake-three"
)

// moduleScript finds the page's entry modules: <script type="module" src="...">.
var moduleScript = regexp.MustCompile(`<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"`)

// importSpec finds the specifiers of a module's static imports and re-exports:
// import x from '…', import { a,\n b } from "…", import '…', export { a } from '…'.
var importSpec = regexp.MustCompile(`(?m)^[ \t]*(?:import|export)\s+(?:[\w*${},\s]+?\s+from\s+)?['"]([^'"]+)['"]`)

func importsOf(src string) []string {
	var out []string
	for _, m := range importSpec.FindAllStringSubmatch(src, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestImportsOf(t *testing.T) {
	src := `// import nothing from './comment.js' is not at the start of a line
import { a, b } from './one.js';
import * as M from "./two.js";
import {
  c,
  d,
} from './three.js';
  import './four.js';
export { e } from './five.js';
export function f() { return "import x from './not.js'"; }
const s = 'import';
`
	got := importsOf(src)
	want := []string{"./one.js", "./two.js", "./three.js", "./four.js", "./five.js"}
	if !slices.Equal(got, want) {
		t.Errorf("importsOf: %q, want %q", got, want)
	}
}

// coreModules are the npm package's core modules the page must import: the
// viewer keeps no copy of what they hold.
var coreModules = []string{"playback.js", "glsl.js"}

// TestModulesServed follows the page's module graph from index.html through
// every import, as the browser does, and checks that each module is served
// with a JavaScript MIME type (browsers refuse module scripts served as
// anything else), from this server (a relative specifier: no CDN, no bundler),
// and that every .js file embedded is part of the graph.
func TestModulesServed(t *testing.T) {
	sw, err := FromSpecies(swinger(t))
	if err != nil {
		t.Fatal(err)
	}
	h := New([]*Asset{sw})
	page := get(t, h, "/")
	if page.Code != 200 {
		t.Fatalf("GET /: %d", page.Code)
	}
	base, _ := url.Parse("http://127.0.0.1:1234/")
	var queue []*url.URL
	for _, m := range moduleScript.FindAllStringSubmatch(page.Body.String(), -1) {
		u, err := base.Parse(m[1])
		if err != nil {
			t.Fatalf("index.html: module %q: %v", m[1], err)
		}
		queue = append(queue, u)
	}
	if len(queue) == 0 {
		t.Fatal("index.html loads no module script")
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u.Path] {
			continue
		}
		seen[u.Path] = true
		rec := get(t, h, u.Path)
		if rec.Code != 200 {
			t.Errorf("GET %s: %d, want 200", u.Path, rec.Code)
			continue
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("GET %s: Content-Type %q, want text/javascript", u.Path, ct)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no X-Content-Type-Options: nosniff", u.Path)
		}
		for _, spec := range importsOf(rec.Body.String()) {
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
				t.Errorf("%s imports %q: want a relative specifier served by the viewer", u.Path, spec)
				continue
			}
			v, err := u.Parse(spec)
			if err != nil || v.Host != base.Host {
				t.Errorf("%s imports %q: %v", u.Path, spec, err)
				continue
			}
			queue = append(queue, v)
		}
	}
	// Every embedded module is reached, so the walk above saw all the imports.
	entries, err := fs.ReadDir(webFS, "web")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if path.Ext(e.Name()) == ".js" {
			files = append(files, e.Name())
			if !seen["/"+e.Name()] {
				t.Errorf("web/%s is embedded but no module imports it", e.Name())
			}
		}
	}
	// The page plays and skins with the npm package's core, the one copy of
	// the playback rule and the skinning chunks (its golden cases run in the
	// package's node tests), served from the files the package holds.
	for _, m := range coreModules {
		if !seen["/core/"+m] {
			t.Errorf("the page does not import the core's %s (/core/%s)", m, m)
		}
		want, err := fs.ReadFile(bonebakethree.Core, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := get(t, h, "/core/"+m).Body.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("/core/%s is not js/bonebake-three/src/core/%s", m, m)
		}
	}
	if len(seen) < 3 {
		t.Errorf("the page's module graph is %d file(s): %v", len(seen), seen)
	}
	t.Logf("the page's module graph: %d files; embedded modules: %v", len(seen), files)
}
