package main

import (
	"testing"
	"time"
)

// Durations read as people say them: a bake of 83 s is "1 min 23 s", never
// "83412 ms" (issue 45, round 3); short ones keep their milliseconds.
func TestTookText(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{33 * time.Millisecond, "33 ms"},
		{999 * time.Millisecond, "999 ms"},
		{999700 * time.Microsecond, "1.0 s"},
		{1118 * time.Millisecond, "1.1 s"},
		{29 * time.Second, "29.0 s"},
		{59940 * time.Millisecond, "59.9 s"},
		{59960 * time.Millisecond, "1 min 0 s"},
		{83412 * time.Millisecond, "1 min 23 s"},
		{83600 * time.Millisecond, "1 min 24 s"},
		{3*time.Minute + 5*time.Second, "3 min 5 s"},
		{75 * time.Minute, "75 min 0 s"},
	} {
		if got := tookText(c.d); got != c.want {
			t.Errorf("tookText(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
