// Writing a bake's files as one set, verified from the values they hold
// before any takes its name (Write).

package bat

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/internal/atomicfile"
)

// Write bakes in into dir (created when missing), verifies the result and writes
// the report with the errors found last: <name>.bat.json, the three textures,
// <name>.glb and, for gametools, <name>.bat.xml. Each file is written atomically.
// Verification rebuilds every vertex of every frame on every core from the values
// the written files hold, taken from memory bit for bit as the files decode
// (storedValues; TestStoredValuesAreTheFiles proves it for every encoding), while
// the files are written: nothing is read back.
//
// The files are a set (atomicfile.Set): each is written beside its target while
// the verification runs and none takes its name until all are written and the
// verification passed, the report last; then they take their names together. A
// failed verification, an error or an interruption leaves the previous set as
// it was and nothing else.
func Write(dir string, in *Input, opt Options) (*Output, error) {
	out, err := Bake(in, opt)
	if err != nil {
		return nil, err
	}
	if work := int64(out.Report.Rows) * int64(out.Report.Vertices); work > maxVerifyWork && !opt.NoLimit {
		return nil, fmt.Errorf("bat: %s: verifying rebuilds %d rows × %d vertices, more than the %d vertex-rows allowed (about 20 s): lower the fps or bake fewer clips, or lift the limit (bat --force)",
			in.Name, out.Report.Rows, out.Report.Vertices, maxVerifyWork)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	set := atomicfile.NewSet()
	defer set.Discard()
	written := make(chan error, 1)
	go func() { written <- writeSet(set, dir, out.Files) }()
	src, verr := out.storedValues()
	var e MaxError
	if verr == nil {
		e, verr = verify(in, out.Report, src, opt.Progress)
	}
	if err := <-written; err != nil {
		return nil, err
	}
	if verr != nil {
		return nil, fmt.Errorf("bat: verifying %s: %w", dir, verr)
	}
	out.Report.MaxError = e
	if opt.Accept != nil {
		if err := opt.Accept(out.Report); err != nil {
			return nil, err
		}
	}
	js := out.Report.JSON()
	report := File{in.Name + ".bat.json", js}
	if err := writeSet(set, dir, []File{report}); err != nil {
		return nil, err
	}
	out.Files = append([]File{report}, out.Files...)
	stale := staleFiles(dir, in.Name, out.Files)
	if err := set.Commit(); err != nil {
		return nil, err
	}
	// After the commit: a failed bake leaves the old set whole; a removal that
	// fails leaves a file the new report does not name, as before.
	for _, p := range stale {
		if err := os.Remove(p); err == nil {
			out.Removed = append(out.Removed, p)
		}
	}
	return out, nil
}

// staleFiles lists the files the set already in dir under name (its
// <name>.bat.json report names them) holds that files does not replace: another
// preset's or format's textures (<name>.position.exr beside the new .png), or
// the gametools XML. Only files that report names, of this name, are listed.
func staleFiles(dir, name string, files []File) []string {
	b, err := os.ReadFile(filepath.Join(dir, name+".bat.json"))
	if err != nil {
		return nil
	}
	var old struct {
		GameTools          *struct{} `json:"gametools"`
		Position, Rotation struct{ File string }
		Skin               struct{ File string }
		Mesh               string
	}
	if json.Unmarshal(b, &old) != nil {
		return nil
	}
	names := []string{old.Position.File, old.Rotation.File, old.Skin.File, old.Mesh}
	if old.GameTools != nil {
		names = append(names, name+".bat.xml")
	}
	var out []string
	for _, n := range names {
		if n == "" || filepath.Base(n) != n || !strings.HasPrefix(n, name+".") ||
			slices.ContainsFunc(files, func(f File) bool { return f.Name == n }) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(dir, n)); err == nil && st.Mode().IsRegular() {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// maxVerifyWork is MaxVerifyWork; tests lower it.
var maxVerifyWork int64 = MaxVerifyWork

// writeSet writes files into dir as part of set.
func writeSet(set *atomicfile.Set, dir string, files []File) error {
	for _, f := range files {
		if err := set.Write(filepath.Join(dir, f.Name), func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}
