//go:build unix

package gltf

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin runs Load and fails the test if it has not returned after 20 s (a hang, not a slow machine)
// (before readers checked, a named pipe blocked the open for ever).
func loadWithin(t *testing.T, path string, opt Options) (*Model, error) {
	t.Helper()
	type result struct {
		m   *Model
		err error
	}
	done := make(chan result, 1)
	go func() { m, err := Load(path, opt); done <- result{m, err} }()
	select {
	case r := <-done:
		return r.m, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("Load(%s) still waiting after 20 s", path)
		return nil, nil
	}
}

// A buffer or image URI naming a named pipe, the model file being one, or a URI
// that is an absolute path (a device) is refused at once, naming it
// (docs/formats/gltf.md §6).
func TestExternalFilesRegularOnly(t *testing.T) {
	d := simpleSkin(t)
	path := writeModel(t, d)
	dir := filepath.Dir(path)
	fifo := filepath.Join(dir, "pipe.bin")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := loadWithin(t, fifo, Options{}); !isRule(err, RuleFile) || !strings.Contains(err.Error(), "pipe.bin: it is a named pipe (FIFO), not a regular file") {
		t.Errorf("the model a named pipe: %v", err)
	}

	write := func(d doc) {
		data, err := jsonMarshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for uri, want := range map[string]string{
		"pipe.bin":         `buffer 1 ("pipe.bin") cannot be read: pipe.bin: it is a named pipe (FIFO), not a regular file`,
		"/dev/zero":        `"/dev/zero" is an absolute path`,
		"%2Fdev%2Fzero":    `"%2Fdev%2Fzero" is an absolute path`,
		"file:///dev/zero": `URI scheme "file" is not supported`,
	} {
		e := cloneDoc(t, d)
		obj(e, "buffers", 1)["uri"] = uri
		write(e)
		if _, err := loadWithin(t, path, Options{}); !isRule(err, RuleBuffer) || !strings.Contains(err.Error(), want) {
			t.Errorf("buffer URI %q: %v; want rule %s and %q", uri, err, RuleBuffer, want)
		}
	}

	// An image is optional: a pipe leaves the texture out with a warning naming it.
	e := cloneDoc(t, d)
	e["images"] = []any{map[string]any{"uri": "pipe.bin"}}
	e["textures"] = []any{map[string]any{"source": 0}}
	e["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	obj(e, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["material"] = 0
	write(e)
	m, err := loadWithin(t, path, Options{Textures: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].Material.Texture != nil || !strings.Contains(strings.Join(m.Warnings, "\n"), "pipe.bin: it is a named pipe (FIFO)") {
		t.Errorf("image a named pipe: texture %v, warnings %q", m.Parts[0].Material.Texture != nil, m.Warnings)
	}
	// The same image as a data URI is read: the test's model is otherwise sound.
	e["images"] = []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngOf(t, 1, 1))}}
	write(e)
	if m, err := Load(path, Options{Textures: true}); err != nil || m.Parts[0].Material.Texture == nil {
		t.Errorf("the same model with a data URI image: %v", err)
	}
}

func cloneDoc(t *testing.T, d doc) doc {
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var c doc
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func isRule(err error, r Rule) bool {
	var ge *Error
	return errors.As(err, &ge) && ge.Rule == r
}
