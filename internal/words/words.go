// Package words writes sizes, counts and durations the way bonebake's reports say them to
// people ("164 KB", "1 clip", "3 vertices"), and finds the names a misspelt one
// may have meant (Near): the command line's lines and the libraries' reports
// (gltfbake.Bake's, species.WriteAll's, a manifest's errors) alike.
package words

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bytes writes a size the way people read it: 164 KB, 12.3 MB, 1.21 GB (three
// significant digits, decimal units).
func Bytes(n int64) string {
	switch {
	case n < 1000:
		return Plural(int(n), "byte")
	case n < 1000*1000:
		return fmt.Sprintf("%.3g KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.3g MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.3g GB", float64(n)/1e9)
}

// Plural says "1 file", "2 files", "3 vertices".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if word == "vertex" {
		return strconv.Itoa(n) + " vertices"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Took writes how long something took: 480 ms, 12.3 s, 1 min 23 s, never
// "83412 ms" (milliseconds under a second, tenths of a second under a minute,
// then minutes and whole seconds).
func Took(d time.Duration) string {
	switch {
	case d < time.Second-500*time.Microsecond: // what rounds to 1000 ms is a second
		return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
	case d < time.Minute-50*time.Millisecond: // what rounds to 60.0 s is a minute
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	s := d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(s/time.Minute), int(s%time.Minute/time.Second))
}

// Near returns those of names that a user who wrote want may have meant, in
// their order: one edit away for a name of up to 4 letters, two for a longer
// one (an insertion, deletion, substitution, or swap of neighbours: "fsp" is
// one from "fps"), or one name the start of the other when it has 3 letters
// or more ("out-dir" and "out").
func Near(want string, names []string) []string {
	near := 2 // edits: one for a short name, where two make any name close
	if len(want) <= 4 {
		near = 1
	}
	var close []string
	for _, n := range names {
		prefix := len(want) >= 3 && strings.HasPrefix(n, want) || len(n) >= 3 && strings.HasPrefix(want, n)
		if n != want && (prefix || editDistance(want, n) <= near) {
			close = append(close, n)
		}
	}
	return close
}

// editDistance is the number of edits between a and b, in bytes (flag names
// are ASCII): insertions, deletions, substitutions and swaps of two neighbours
// ("fsp" is one from "fps"), the optimal string alignment distance.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
