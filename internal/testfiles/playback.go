package testfiles

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// Playback is testdata/playback/golden.json: the playback rule's golden cases
// that every implementation's tests run (formats/bpat, crowd, crowd/combat,
// and the JavaScript package's node tests, of its core and of its GLSL),
// hand-derived from docs/formats/bpat.md §5.2 and docs/runtime.md §6.1, §6.3
// and §8.
type Playback struct {
	Tolerance float64
	Resolve   []struct {
		Phase  Num
		Frames int
		Loops  bool
		Want   [3]float64
		Why    string
	}
	Clips map[string]GoldenPlayhead
	Fades []struct {
		Name string
		// Switches are clip changes (To, Fade) and, where Gait is set, a
		// speed blend: the other gait Gait at the own clip's phase and rate,
		// weighing Share of the own side.
		Switches []struct {
			T     float64
			To    string
			Fade  Num
			Gait  string
			Share float64
		}
		Probes []struct {
			T                float64
			Own, From, Prior [4]float64
			Why              string
		}
	}
	SpeedBlend struct {
		Walk, Run struct{ Speed, Cycle float64 }
		Cases     []struct {
			V, Run, Rate float64
			Why          string
		}
	}
	// Swing is a swing's attack phase T seconds into it (docs/runtime.md §8).
	Swing struct {
		Cases []struct {
			T     Num
			Phase float64
			Why   string
		}
	}
}

// GoldenPlayhead is a clip playing in the golden fades: its first palette row,
// frame count, whether it loops and whether its phase wraps, and its phase at
// the switch and rate.
type GoldenPlayhead struct {
	Row, Frames  uint32
	Loops, Wraps bool
	Phase, Rate  float64
}

// Num is a JSON number, or one of the strings NaN, Inf and -Inf.
type Num float64

// UnmarshalJSON reads a number or a non-finite number's name.
func (n *Num) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*n = Num(math.NaN())
	case `"Inf"`:
		*n = Num(math.Inf(1))
	case `"-Inf"`:
		*n = Num(math.Inf(-1))
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("golden number %s: %w", b, err)
		}
		*n = Num(f)
	}
	return nil
}

// LoadPlayback reads the golden playback cases, failing the test when they
// are missing or malformed (they are the repository's own).
func LoadPlayback(t testing.TB) *Playback {
	t.Helper()
	p, ok := Find("playback", "golden.json")
	if !ok {
		t.Fatal("testdata/playback/golden.json is missing")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var g Playback
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(g.Resolve) == 0 || len(g.Fades) == 0 || len(g.SpeedBlend.Cases) == 0 || len(g.Swing.Cases) == 0 || g.Tolerance <= 0 {
		t.Fatalf("%s: a section is empty", p)
	}
	return &g
}
