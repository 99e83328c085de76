// Package words writes sizes and counts the way bonebake's reports say them to
// people ("164 KB", "1 clip", "3 vertices"): the command line's lines and the
// libraries' reports (gltfbake.Bake's, species.WriteAll's) alike.
package words

import (
	"fmt"
	"strconv"
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
