package words

import (
	"slices"
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		1: "1 byte", 999: "999 bytes", 1000: "1 KB", 164_000: "164 KB", 243_712: "244 KB",
		12_345_678: "12.3 MB", 1_210_000_000: "1.21 GB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		word, want string
	}{{0, "clip", "0 clips"}, {1, "clip", "1 clip"}, {2, "leaf joint", "2 leaf joints"}, {1, "vertex", "1 vertex"}, {3, "vertex", "3 vertices"}} {
		if got := Plural(c.n, c.word); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
}

// Durations read as people say them: a bake of 83 s is "1 min 23 s", never
// "83412 ms" (issue 45, round 3); short ones keep their milliseconds.
func TestTook(t *testing.T) {
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
		if got := Took(c.d); got != c.want {
			t.Errorf("Took(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestNear: the names one edit from a short misspelling (a swap of neighbours
// is one), two from a longer one, or that start the other; none for a name
// far from all.
func TestNear(t *testing.T) {
	flags := []string{"fps", "up", "out", "scale", "species", "species-id", "plant-feet", "preset", "addr", "dir"}
	for _, c := range []struct {
		want string
		near []string
	}{
		{"fsp", []string{"fps"}},              // a swap: one edit ("up" is two, too far for 3 letters)
		{"adr", []string{"addr"}},             // "dir" is two
		{"plantfeet", []string{"plant-feet"}}, // one insertion
		{"speciesid", []string{"species", "species-id"}},
		{"out-dir", []string{"out"}}, // out starts it
		{"scal", []string{"scale"}},  // it starts scale
		{"preset-ue", []string{"preset"}},
		{"x", nil},
		{"fps", nil}, // the name itself is not a guess
	} {
		if got := Near(c.want, flags); !slices.Equal(got, c.near) {
			t.Errorf("Near(%q) = %q, want %q", c.want, got, c.near)
		}
	}
}
