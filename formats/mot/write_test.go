package mot

import (
	"bytes"
	"os"
	"testing"
)

func TestRewriteIsByteExact(t *testing.T) {
	for _, name := range goldenFiles {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(shared(t, name))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b) {
				for i := range min(len(out), len(b)) {
					if out[i] != b[i] {
						t.Fatalf("differs at %#x: %02x, file %02x (lengths %d, %d)", i, out[i], b[i], len(out), len(b))
					}
				}
				t.Fatalf("lengths %d, file %d", len(out), len(b))
			}
		})
	}
}
