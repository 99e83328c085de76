package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// testBar is a bar on a buffer, a terminal cols wide, on a clock the test moves.
func testBar(out *strings.Builder, cols int, clock *time.Time) *bar {
	return &bar{w: out, width: func() int { return cols }, now: func() time.Time { return *clock },
		describe: func() string { return "baking Fox" }, ownClock: true}
}

// The drawn line says what is done in percent and counts, the time taken and
// left, and never reaches the terminal's last column, however narrow.
func TestBarLineFitsAndTells(t *testing.T) {
	for _, cols := range []int{200, 80, 50, 30, 12} {
		var out strings.Builder
		clock := time.Unix(1000, 0)
		b := testBar(&out, cols, &clock)
		b.set(0, 50)
		clock = clock.Add(2 * time.Second)
		b.set(25, 50)
		lines := strings.Split(out.String(), "\r")[1:]
		if len(lines) != 2 {
			t.Fatalf("%d columns: drew %q, want two lines", cols, out.String())
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > cols-1 {
				t.Errorf("%d columns: line %q is %d wide", cols, l, n)
			}
		}
		if cols < 100 {
			continue
		}
		// half of the 40 cells full; words.Took's durations
		if want := "baking Fox  50% |" + strings.Repeat("█", 20) + strings.Repeat(" ", 20) + "| (25/50, 2.0 s, 2.0 s left)"; strings.TrimRight(lines[1], " ") != want {
			t.Errorf("%d columns: line %q, want %q", cols, lines[1], want)
		}
	}
}

// The line is redrawn at most every barEvery, and at the end cleared: the
// widest line drawn overwritten with spaces, the cursor back at its start.
func TestBarThrottlesAndClears(t *testing.T) {
	var out strings.Builder
	clock := time.Unix(1000, 0)
	b := testBar(&out, 100, &clock)
	b.set(1, 10)
	first := out.String()
	clock = clock.Add(barEvery / 2)
	b.set(2, 10)
	if out.String() != first {
		t.Fatalf("redrawn after %v: %q", barEvery/2, out.String())
	}
	clock = clock.Add(barEvery)
	b.set(3, 10)
	if !strings.Contains(out.String(), "(3/10") {
		t.Fatalf("not redrawn after %v: %q", barEvery*3/2, out.String())
	}
	wide := 0
	for _, l := range strings.Split(out.String(), "\r")[1:] {
		wide = max(wide, utf8.RuneCountInString(l))
	}
	before := out.Len()
	b.set(10, 10)
	if got, want := out.String()[before:], "\r"+strings.Repeat(" ", wide)+"\r"; got != want {
		t.Errorf("cleared with %q, want %q", got, want)
	}
	b.set(10, 10)
	if out.Len() != before+wide+2 {
		t.Errorf("drew after the end: %q", out.String()[before:])
	}
}
