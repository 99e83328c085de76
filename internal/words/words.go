// Package words writes sizes, counts and durations the way bonebake's reports say them to
// people ("164 KB", "1 clip", "3 vertices"): the command line's lines and the
// libraries' reports (gltfbake.Bake's, species.WriteAll's) alike.
package words

import (
	"fmt"
	"strconv"
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
