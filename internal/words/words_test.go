package words

import "testing"

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
