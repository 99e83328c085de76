package layering

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"testing"
)

// maxExports is how many identifiers a package of the runtime may export: few
// enough to read in a sitting (issue 47: crowd held 299 before it was split by
// idea into crowd, crowd/registry, crowd/unit and crowd/combat).
const maxExports = 100

// TestRuntimePackagesSmall counts what each package under crowd/ exports, as
// go doc lists it: its exported types, functions, constants and variables, and
// the exported methods of its exported types (struct fields not counted), in
// the files built on this platform.
func TestRuntimePackagesSmall(t *testing.T) {
	root := filepath.Join("..", "..", "crowd")
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		names, err := exported(dir)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), dir)
		if len(names) >= maxExports {
			t.Errorf("%s exports %d identifiers, %d at most: split it by idea\n%v", rel, len(names), maxExports-1, names)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The count itself: a package of two exported types, one with an exported
	// and an unexported method, a constant group and a function.
	got, err := exportedSrc(`package p
type A struct{ X int }
type b int
func (A) M()      {}
func (A) m()      {}
func (b) N()      {}
const (C, c = 1, 2)
var V, w int
func F() {}
type D = A
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "A.M", "C", "D", "F", "V"}; !equal(got, want) {
		t.Errorf("counted %v; want %v", got, want)
	}
}

// exported lists what the package in dir exports (nothing for a folder with no
// Go package).
func exported(dir string) ([]string, error) {
	pkg, err := build.ImportDir(dir, 0)
	if _, ok := err.(*build.NoGoError); ok {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return names(files), nil
}

func exportedSrc(src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	return names([]*ast.File{f}), nil
}

// names lists the exported identifiers of files, sorted, each once.
func names(files []*ast.File) []string {
	seen := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					seen[d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					seen[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							seen[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								seen[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
