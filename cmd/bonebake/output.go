package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/words"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// bytesText writes a size the way people read it: 164 KB, 12.3 MB, 1.21 GB
// (internal/words, as the libraries' reports do).
func bytesText(n int64) string { return words.Bytes(n) }

// tookText writes how long something took the way people read it: 480 ms,
// 12.3 s, 1 min 23 s (internal/words, as the libraries' reports do).
func tookText(d time.Duration) string { return words.Took(d) }

// tell prints the libraries' reports (bake.Line: bake's, and the notes bat
// tells of a model) as the command line words them: what was written on outw,
// the rest on errw, settings named as flags (flagWords); a model of several
// that failed as an error of the command's, naming the model.
func tell(outw, errw io.Writer) func(bake.Line) {
	return func(l bake.Line) {
		switch text := flagWords(l.Text); l.Kind {
		case bake.Wrote, bake.Total:
			fmt.Fprintln(outw, text)
		case bake.Doing:
			fmt.Fprintln(errw, "bonebake:", text)
		case bake.Failed:
			if msg := libError(l.Err).Error(); strings.Contains(msg, l.Text) {
				fmt.Fprintln(errw, "bonebake:", msg)
			} else {
				fmt.Fprintf(errw, "bonebake: %s: %s\n", l.Text, msg)
			}
		default:
			fmt.Fprintln(errw, text)
		}
	}
}

// progress returns a progress callback drawing a bar on stderr, or nil when stderr
// is not a terminal.
func progress(cmd *cobra.Command, what string) func(done, total int) {
	return progressSince(cmd, what, time.Time{})
}

// progressSince is progress for a command whose step lines on stderr give the
// time since start ("bonebake: 4.1 s: baking horse"): the bar tells that time
// too, in the same words, in place of its own clock from 0 s. A zero start
// keeps the bar's own clock.
func progressSince(cmd *cobra.Command, what string, start time.Time) func(done, total int) {
	f, ok := cmd.ErrOrStderr().(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	b := &bar{w: f, now: time.Now, describe: func() string { return what }, ownClock: start.IsZero(),
		width: func() int { w, _, _ := term.GetSize(int(f.Fd())); return w }}
	if !start.IsZero() {
		b.describe = func() string { return "bonebake: " + tookText(time.Since(start)) + ": " + what }
	}
	return b.set
}

// bytesProgress draws bpx.PackOptions.Progress, bytes stored of a total, on a
// progress bar in MiB (nil when bar is: not a terminal).
func bytesProgress(bar func(done, total int)) func(done, total uint64) {
	if bar == nil {
		return nil
	}
	return func(done, total uint64) {
		t := max(1, int((total+1<<20-1)>>20))
		d := int(done >> 20)
		if done >= total {
			d = t // a last part under 1 MiB still ends the bar
		}
		bar(d, t)
	}
}
