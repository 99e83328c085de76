package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// bar is the progress line a command draws on a terminal: what it does, the
// percent done, a bar, the counts, the time taken and the time left, fitted to
// the terminal's width, redrawn at most every barEvery and cleared when done.
// It is bonebake's own: a progress bar package's inits (colour tables,
// regexps) cost every command's start a score of fresh pages (BENCHMARKS.md,
// issue 46 rounds 5 and 7), and it only ever draws on a terminal.
type bar struct {
	mu       sync.Mutex
	w        io.Writer
	width    func() int // the terminal's columns; 0 when unknown
	now      func() time.Time
	describe func() string // what is being done
	ownClock bool          // the time taken is not in describe's words
	start    time.Time     // of the first call
	drawn    time.Time     // when the line was last drawn
	wide     int           // the longest line drawn, what clearing overwrites
	done     bool
}

const (
	barEvery = 50 * time.Millisecond // the line is redrawn at most this often
	barCells = 40                    // the bar's cells on a wide terminal
)

// set tells the bar that done of total are done; at done ≥ total the line is
// cleared, and the bar draws nothing more.
func (b *bar) set(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	now := b.now()
	if b.start.IsZero() {
		b.start = now
	}
	if done >= total {
		b.done = true
		if b.wide > 0 {
			io.WriteString(b.w, "\r"+strings.Repeat(" ", b.wide)+"\r")
		}
		return
	}
	if !b.drawn.IsZero() && now.Sub(b.drawn) < barEvery {
		return
	}
	b.drawn = now
	line := b.line(max(done, 0), total, now.Sub(b.start))
	n := utf8.RuneCountInString(line)
	pad := max(b.wide-n, 0) // a shorter line still covers the longer one before it
	b.wide = max(b.wide, n)
	io.WriteString(b.w, "\r"+line+strings.Repeat(" ", pad))
}

// line is the text drawn for done of total after took: "baking Fox  42% |████
// | (21/50, 1.2 s, 1.7 s left)", the bar narrowed, then the whole cut, to fit
// the terminal's width less a column (a line filling the last column wraps
// on some terminals).
func (b *bar) line(done, total int, took time.Duration) string {
	pct := done * 100 / max(total, 1)
	stats := fmt.Sprintf("(%d/%d", done, total)
	if b.ownClock {
		stats += ", " + tookText(took)
	}
	if done > 0 {
		left := time.Duration(float64(took) * float64(total-done) / float64(done))
		stats += ", " + tookText(left) + " left"
	}
	stats += ")"
	head := fmt.Sprintf("%s %3d%% ", b.describe(), pct)
	cols := b.width()
	if cols <= 0 {
		cols = 80
	}
	room := cols - 1 - utf8.RuneCountInString(head) - utf8.RuneCountInString(stats) - 3 // the bar's two ends and a space
	cells := min(barCells, room)
	if cells < 4 {
		return cut(head+stats, cols-1)
	}
	full := cells * done / max(total, 1)
	return head + "|" + strings.Repeat("█", full) + strings.Repeat(" ", cells-full) + "| " + stats
}

// cut is s cut to n runes.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
