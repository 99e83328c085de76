package formattest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats"
)

// NotRegular checks that open refuses a named pipe and a character device at
// once, with an error wrapping formats.ErrNotRegular that names the path and
// what it is. Before readers checked, a pipe with no writer blocked the open for
// ever, and /dev/zero was read until memory ran out; a pipe with a writer (a
// shell's `cat x.bpat | bonebake inspect /dev/stdin`) gave a wrong magic.
func NotRegular(t *testing.T, open func(path string) error) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pipe.bpat")
	cases := map[string]string{"/dev/zero": "a character device"}
	if err := mkfifo(fifo); err == nil {
		cases[fifo] = "a named pipe (FIFO)"
	} else {
		t.Logf("no named pipe: %v", err)
	}
	for path, what := range cases {
		done := make(chan error, 1)
		go func() { done <- open(path) }()
		select {
		case err := <-done:
			if !errors.Is(err, formats.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
				t.Errorf("%s: %v; want an error naming it and saying it is %s, not a regular file", path, err, what)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("%s: still waiting after 20 s; want it refused at once", path)
		}
	}
}
