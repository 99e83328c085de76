package mot

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// shared returns the path of a file in the motion test data.
func shared(t testing.TB, name string) string { return testfiles.Path(t, "mot", name) }

// goldenFiles are every motion with golden output in the shared test data.
var goldenFiles = []string{
	"pl000f_0a25.wiiu-be.mot",
	"synthetic/bayo1_be.mot", "synthetic/bayo1_le.mot",
	"synthetic/bayo2_be.mot", "synthetic/bayo2_le.mot",
}

type golden struct {
	Frames int                 `json:"frames"`
	Frame  map[string][]string `json:"frame"`
}

func readGolden(t testing.TB, mot string) golden {
	t.Helper()
	b, err := os.ReadFile(mot[:len(mot)-len(".mot")] + ".golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// checkGolden compares m's evaluation with the golden per-frame values, bit for
// bit. Tracks are keyed "bone/track"; camera records are not in the golden files.
func checkGolden(t *testing.T, m *Motion, g golden) {
	t.Helper()
	if m.Frames != g.Frames {
		t.Fatalf("frames %d, golden %d", m.Frames, g.Frames)
	}
	vals, err := m.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, r := range m.Records {
		key := fmt.Sprintf("%d/%d", r.Bone, r.Track)
		want, ok := g.Frame[key]
		if !ok {
			if IsCamera(m.Family, r.Bone) {
				continue
			}
			t.Fatalf("record %d %s not in golden", i, key)
		}
		seen[key] = true
		for x, h := range want {
			w, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			if got := math.Float64bits(vals[i][x]); got != w {
				t.Fatalf("%s (type %d) frame %d: %016x (%v), golden %s (%v)", key, r.Type, x, got, vals[i][x], h, math.Float64frombits(w))
			}
			c, _ := m.Curve(i)
			if got := math.Float64bits(c.At(x)); got != w {
				t.Fatalf("%s At(%d): %016x, golden %s", key, x, got, h)
			}
		}
	}
	for key := range g.Frame {
		var bone, track int16
		fmt.Sscanf(key, "%d/%d", &bone, &track)
		if !seen[key] && !IsCamera(Bayo1, bone) && !IsCamera(Bayo2, bone) {
			t.Errorf("golden track %s has no record", key)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, name := range goldenFiles {
		t.Run(name, func(t *testing.T) {
			p := shared(t, name)
			m, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, m, readGolden(t, p))
		})
	}
}
