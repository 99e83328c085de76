//go:build unix

package crowd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/gait"
)

// A gait sidecar or snapshot mesh beside a species file that is a named pipe is
// refused at once, naming it, by every way of loading a folder or a file; before,
// reading it waited for a writer for ever.
func TestBesideNotRegular(t *testing.T) {
	dir := t.TempDir()
	out, id, clip := bakeWalker(t, dir)
	for _, beside := range []string{gait.SidecarPath(out), strings.TrimSuffix(out, ".bpat") + "_minimal.bpsm"} { // the snapshot beside it
		os.Remove(beside)
		if err := syscall.Mkfifo(beside, 0o644); err != nil {
			t.Skip("no named pipes here:", err)
		}
		for what, load := range map[string]func(r *registry.Registry) error{
			"Files": func(r *registry.Registry) error { return r.Load(registry.Files(out)) },
			"Dir":   func(r *registry.Registry) error { return r.Load(registry.Dir(dir)) },
			"FS":    func(r *registry.Registry) error { return r.Load(registry.FS(os.DirFS(dir), ".")) },
		} {
			done := make(chan error, 1)
			go func() {
				r := registry.New(walkerOpts(id, clip, nil)...)
				defer r.Close()
				done <- load(r)
			}()
			select {
			case err := <-done:
				if !errors.Is(err, formats.ErrNotRegular) || !strings.Contains(err.Error(), filepath.Base(beside)) || !strings.Contains(err.Error(), "named pipe") {
					t.Errorf("%s with %s a named pipe: %v; want it refused, named", what, filepath.Base(beside), err)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("%s with %s a named pipe: still waiting after 20 s", what, filepath.Base(beside))
			}
		}
		os.Remove(beside)
	}
}
