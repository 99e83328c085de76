package crowd_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is a Go block of the README with the Example it must equal: the
// line before its fence says <!-- Example_readme in formats/bpat -->.
var readmeBlock = regexp.MustCompile("(?s)<!-- (Example\\w*) in (\\S+) -->\n```go\n(.*?)```")

// TestReadmeExamples keeps the README's Go code compiled and run: each block is
// the body of an Example (less its Output comment), which go test compiles and
// checks in its package.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, m := range readmeBlock.FindAllSubmatch(readme, -1) {
		name, dir, block := string(m[1]), string(m[2]), string(m[3])
		found[dir] = true
		body, err := exampleBody(filepath.Join("..", dir), name)
		if err != nil {
			t.Error(err)
			continue
		}
		if body != block {
			t.Errorf("README's block for %s in %s differs from the Example's body; the Example's is:\n%s", name, dir, body)
		}
	}
	for _, dir := range []string{"crowd", "formats/bpat", "species/creatures"} {
		if !found[dir] {
			t.Errorf("the README has no Go block kept in step with an Example in %s", dir)
		}
	}
}

// exampleBody returns the body of function name in dir's test files, one tab
// less indented, without its Output comment.
func exampleBody(dir, name string) (string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	fset := token.NewFileSet()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return "", err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != name || fn.Body == nil {
				continue
			}
			body := src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset]
			if i := bytes.Index(body, []byte("\t// Output:")); i >= 0 {
				body = body[:i]
			}
			var out strings.Builder
			for _, line := range strings.Split(strings.Trim(string(body), "\n"), "\n") {
				out.WriteString(strings.TrimPrefix(line, "\t") + "\n")
			}
			return out.String(), nil
		}
	}
	return "", os.ErrNotExist
}
