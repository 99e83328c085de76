package layering

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// floorRow is a row of docs/ARCHITECTURE.md's "What each package owns" table:
// the packages it names and what its "imports (in the module)" column says
// they import.
type floorRow struct {
	line       int
	pkgs       []string
	imports    []string // a name ending in "/" stands for the packages under it
	everything bool     // the column says "everything"
}

var (
	backticked  = regexp.MustCompile("`([^`]+)`")
	parenthesis = regexp.MustCompile(`\([^()]*\)`)
)

// floorTable reads the table from docs/ARCHITECTURE.md: the rows after the
// header whose third column is "imports (in the module)", up to the first line
// that is not a row. In the imports column, parentheses are remarks (a
// package's tests, why it imports one), "nothing" is none and "…" after a
// slash stands for every package under it.
func floorTable(t *testing.T, doc string) []floorRow {
	t.Helper()
	var rows []floorRow
	in := false
	for i, l := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		if !in {
			in = len(cells) == 3 && strings.TrimSpace(cells[2]) == "imports (in the module)"
			continue
		}
		if !strings.HasPrefix(l, "|") {
			break
		}
		if strings.HasPrefix(l, "|---") {
			continue
		}
		if len(cells) < 3 {
			t.Fatalf("docs/ARCHITECTURE.md:%d: a row of %d cells, want 3", i+1, len(cells))
		}
		r := floorRow{line: i + 1}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			r.pkgs = append(r.pkgs, m[1])
		}
		col := strings.TrimSpace(parenthesis.ReplaceAllString(cells[len(cells)-1], ""))
		for _, m := range backticked.FindAllStringSubmatch(col, -1) {
			r.imports = append(r.imports, strings.TrimSuffix(m[1], "…"))
		}
		r.everything = col == "everything"
		if len(r.pkgs) == 0 || (len(r.imports) == 0 && !r.everything && col != "nothing") {
			t.Fatalf("docs/ARCHITECTURE.md:%d: cannot read the row %q", i+1, l)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("docs/ARCHITECTURE.md: no table with an \"imports (in the module)\" column")
	}
	return rows
}

func TestFloorTable(t *testing.T) {
	rows := floorTable(t, `
| package | owns | imports (in the module) |
|---|---|---|
| `+"`a`, `b/c`"+` | things (with `+"`x`"+`) | `+"`rig`, `species/…`, `source/gltf` (its writer)"+` |
| `+"`d`"+` | more | nothing (its tests: `+"`formats`"+`) |
| `+"`cmd/x`"+` | all | everything |

after`)
	if len(rows) != 3 || !slices.Equal(rows[0].pkgs, []string{"a", "b/c"}) ||
		!slices.Equal(rows[0].imports, []string{"rig", "species/", "source/gltf"}) ||
		len(rows[1].imports) != 0 || rows[1].everything || !rows[2].everything {
		t.Errorf("floorTable: %+v", rows)
	}
}

// TestArchitectureTable: docs/ARCHITECTURE.md's table says what each package
// imports in the module, and TestLayering's rules say what it may: every
// package has a row; each row lists exactly what its packages import (none
// missing, none stale); and nothing a row lists is against its package's
// floor.
func TestArchitectureTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := floorTable(t, string(doc))
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "github.com/bonebake/bonebake/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/bonebake/bonebake/"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, ":")
		var in []string
		for _, imp := range strings.Fields(imps) {
			if p, ok := strings.CutPrefix(imp, mod); ok {
				in = append(in, p)
			}
		}
		imports[strings.TrimPrefix(pkg, mod)] = in
	}
	covered := map[string]bool{}
	for _, r := range rows {
		used := map[string]bool{}
		for _, pkg := range r.pkgs {
			in, ok := imports[pkg]
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md:%d: no package %s in the module", r.line, pkg)
				continue
			}
			covered[pkg] = true
			rule, ok := rule(pkg)
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md:%d: %s has no rule in TestLayering", r.line, pkg)
			}
			for _, imp := range r.imports {
				if !permits(rule, imp) {
					t.Errorf("docs/ARCHITECTURE.md:%d: %s lists %s, which its floor in TestLayering does not allow", r.line, pkg, imp)
				}
			}
			if r.everything {
				continue
			}
			for _, imp := range in {
				k := slices.IndexFunc(r.imports, func(l string) bool {
					return l == imp || (strings.HasSuffix(l, "/") && strings.HasPrefix(imp, l))
				})
				if k < 0 {
					t.Errorf("docs/ARCHITECTURE.md:%d: %s imports %s, which its row does not list", r.line, pkg, imp)
					continue
				}
				used[r.imports[k]] = true
			}
		}
		for _, l := range r.imports {
			if !used[l] && !r.everything {
				t.Errorf("docs/ARCHITECTURE.md:%d: the row lists %s, which none of %v imports", r.line, l, r.pkgs)
			}
		}
	}
	for pkg := range imports {
		if !covered[pkg] {
			t.Errorf("%s has no row in docs/ARCHITECTURE.md's table", pkg)
		}
	}
}

// walkRef is a `file.go: Func` in docs/ARCHITECTURE.md's walks: a file from
// the repository's root and a function in it, Type.Method for a method.
var walkRef = regexp.MustCompile("`([\\w./-]+\\.go): ([\\w.]+)`")

// TestArchitectureWalks: the walks of docs/ARCHITECTURE.md ("Following a
// bake", "Following a viewer step") are numbered steps, each opening with
// the `file.go: Func` it is at, and every function they name is declared in
// the file they name, so that a move or a rename cannot leave the walk
// behind.
func TestArchitectureWalks(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	for _, walk := range []string{"## Following a bake", "## Following a viewer step"} {
		start := slices.Index(lines, walk)
		if start < 0 {
			t.Errorf("docs/ARCHITECTURE.md: no section %q", walk)
			continue
		}
		steps := 0
		for i := start + 1; i < len(lines) && !strings.HasPrefix(lines[i], "## "); i++ {
			l := lines[i]
			if n, rest, ok := strings.Cut(l, ". "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
				steps++
				if m := walkRef.FindStringIndex(rest); m == nil || m[0] != 0 {
					t.Errorf("docs/ARCHITECTURE.md:%d: step %s does not open with the `file.go: Func` it is at", i+1, n)
				}
			}
			for _, m := range walkRef.FindAllStringSubmatch(l, -1) {
				if err := declared("../../"+m[1], m[2]); err != nil {
					t.Errorf("docs/ARCHITECTURE.md:%d: `%s: %s`: %v", i+1, m[1], m[2], err)
				}
			}
		}
		if steps < 5 {
			t.Errorf("docs/ARCHITECTURE.md: %q has %d numbered steps, want the walk", walk, steps)
		}
	}
}

// declared says whether the Go file at path declares the function name, or,
// for Type.Method, that method of Type.
func declared(path, name string) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	recv, fn, isMethod := strings.Cut(name, ".")
	if !isMethod {
		recv, fn = "", name
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || (fd.Recv == nil) != (recv == "") {
			continue
		}
		if recv == "" {
			return nil
		}
		typ := fd.Recv.List[0].Type
		if s, ok := typ.(*ast.StarExpr); ok {
			typ = s.X
		}
		if id, ok := typ.(*ast.Ident); ok && id.Name == recv {
			return nil
		}
	}
	return errors.New("not declared in that file")
}
