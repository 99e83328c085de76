package fbx

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// curveFile is the small ASCII file with its one curve (the arm's Z rotation,
// degrees) replaced: keys at whole seconds, and the key attributes given.
func curveFile(t *testing.T, values []string, attrs string) string {
	t.Helper()
	secs := make([]int64, len(values))
	for i := range secs {
		secs[i] = int64(i)
	}
	return curveFileAt(t, secs, values, attrs)
}

// curveFileAt is curveFile with keys at the seconds given.
func curveFileAt(t *testing.T, secs []int64, values []string, attrs string) string {
	t.Helper()
	src := writeASCIIText(t)
	times := make([]string, len(values))
	for i := range values {
		times[i] = strconv.FormatInt(secs[i]*TicksPerSecond, 10)
	}
	n := len(values)
	old := "\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,90\n\t\t}\n"
	if !strings.Contains(src, old) {
		t.Fatal("the curve is not where it was")
	}
	src = strings.Replace(src, old, "\t\tKeyTime: *"+itoa(n)+" {\n\t\t\ta: "+strings.Join(times, ",")+"\n\t\t}\n\t\tKeyValueFloat: *"+itoa(n)+" {\n\t\t\ta: "+strings.Join(values, ",")+"\n\t\t}\n"+attrs, 1)
	p := filepath.Join(t.TempDir(), "curve.fbx")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

// attrs is one KeyAttr run: flags, four data values, covering count keys.
func attrs(flags string, data string, count int) string {
	return "\t\tKeyAttrFlags: *1 {\n\t\t\ta: " + flags + "\n\t\t}\n\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: " + data + "\n\t\t}\n\t\tKeyAttrRefCount: *1 {\n\t\t\ta: " + itoa(count) + "\n\t\t}\n"
}

// armAngle is the arm's Z rotation (degrees) at time s of the file's clip.
func armAngle(t *testing.T, path string, s float64) float64 {
	t.Helper()
	cf, err := LoadClips(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pose := make([]rig.Transform, len(cf.Nodes))
	for i, n := range cf.Nodes {
		pose[i] = n.Rest
	}
	cf.Animations[0].SampleAt(s, pose)
	q := pose[1].Rotation
	return 2 * math.Atan2(q[2], q[3]) * 180 / math.Pi
}

// Cubic keys follow their tangents (§11), not the chord between keys: each
// expected value is the Hermite (or weighted Bézier) of the keys' values and
// slopes, worked by hand. three.js's FBXLoader would give the chord's
// values (45° at 0.5 s on the first curve).
func TestCubicKeys(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []string
		attrs  string
		at     float64
		want   float64
		tol    float64
	}{
		// User tangents (cubic 0x8 | user 0x400), right slope 180°/s at key 0,
		// next-left slope 0 at key 1, dt 1 s, unweighted:
		// v(u) = h10·180 + h01·90. u = 0.5: 0.125·180 + 0.5·90 = 67.5.
		{"user, middle", []string{"0", "90"}, attrs("1032", "180,0,0,0", 2), 0.5, 67.5, 1e-3},
		// u = 0.2: h10 = 0.2·0.8² = 0.128, h01 = 0.2²·(3−0.4) = 0.104: 23.04 + 9.36.
		{"user, 0.2 s", []string{"0", "90"}, attrs("1032", "180,0,0,0", 2), 0.2, 32.4, 1e-3},
		// Weighted (0x1000000 | 0x2000000): both handles at a quarter of the
		// segment, 2500 in four-decimal fixed point, packed as 2500 | 2500<<16
		// = 163842500. The time Bézier 0, ¼, ¾, 1 is symmetric, so x = ½ is
		// u = ½; the value Bézier 0, 45 (0 + 180·¼), 90, 90 gives
		// 3/8·45 + 3/8·90 + 1/8·90 = 61.875 (weights over 9999 would give
		// 61.877; unweighted, 67.5).
		{"weighted", []string{"0", "90"}, attrs("50332680", "180,0,163842500,0", 2), 0.5, 61.875, 5e-4},
		// Auto (0x108) keys 0, 60, 180 at 0, 1, 2 s: key 1's slope is the
		// cardinal spline's (180 − 0)/2 = 90°/s, key 0's the chord to key 1,
		// 60°/s: at 0.5 s 0.125·60 + 0.5·60 − 0.125·90 = 26.25 (the chord: 30).
		{"auto", []string{"0", "60", "180"}, attrs("264", "0,0,0,0", 3), 0.5, 26.25, 1e-3},
		// Clamp progressive (0x6108, as Unity and Maya write "clamped auto"),
		// keys 0, 90, 100: key 1's cardinal slope 50°/s would take its handle
		// (a third of the 1 s segment on) past key 2's 100, so it is cut to
		// (100 − 90)/(1/3) = 30°/s; key 0, an end, lies flat. At 0.5 s:
		// 0.5·90 − 0.125·30 = 41.25 (uncut: 38.75).
		{"clamp progressive", []string{"0", "90", "100"}, attrs("24840", "0,0,0,0", 3), 0.5, 41.25, 1e-3},
		// Constant next (0x2 | 0x100): the next key's value at once.
		{"constant next", []string{"0", "90"}, attrs("258", "0,0,0,0", 2), 0.5, 90, 1e-3},
	} {
		if got := armAngle(t, curveFile(t, c.values, c.attrs), c.at); !near(got, c.want, c.tol) {
			t.Errorf("%s: %.4f° at %v s, want %v", c.name, got, c.at, c.want)
		}
	}
	// Auto keys 0, 60, 100 at 0, 1 and 3 s: the chords' slopes are 60 and
	// 20°/s and the cardinal spline's (100 − 0)/3. Time-independent (0x2108,
	// Mixamo's), key 1's slope is that, 33.33°/s; time-dependent (0x108) it is
	// averaged with the chords weighted by the other's share of the span:
	// 33.33/2 + (60·⅔ + 20·⅓)/2 = 40°/s. At 0.5 s, with key 0's one-sided
	// 60°/s: 0.125·60 + 0.5·60 − 0.125·s₁.
	for _, c := range []struct {
		flags string
		want  float64
	}{{"8456", 37.5 - 0.125*100.0/3}, {"264", 32.5}} {
		p := curveFileAt(t, []int64{0, 1, 3}, []string{"0", "60", "100"}, attrs(c.flags, "0,0,0,0", 3))
		if got := armAngle(t, p, 0.5); !near(got, c.want, 1e-3) {
			t.Errorf("auto, flags %s, uneven keys: %.4f° at 0.5 s, want %.4f", c.flags, got, c.want)
		}
	}
}

// A slope that carries a translation past what float32 holds (1e300 cm/s in
// an ASCII file, whose numbers are doubles) is refused, naming the model,
// instead of baking infinities.
func TestCubicOverflowRefused(t *testing.T) {
	p := curveFile(t, []string{"0", "90"}, attrs("1032", "1e300,0,0,0", 2))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte(strings.Replace(string(b), `C: "OP",22,2, "Lcl Rotation"`, `C: "OP",22,2, "Lcl Translation"`, 1)), 0o644)
	_, err = LoadClips(p, gltf.Options{})
	var fe *Error
	if !errors.As(err, &fe) || fe.Rule != RuleTransform || !strings.Contains(err.Error(), `"Arm"`) {
		t.Errorf("a slope of 1e300: %v", err)
	}
}

// What bonebake does not apply of a cubic key is said, naming the take and
// the model: a tangent velocity (0x10000000) and a time-dependent auto key's
// bias (its data 0 and 1).
func TestCubicUnappliedSaid(t *testing.T) {
	for _, c := range []struct{ flags, data, want string }{
		{"268436488", "180,0,0,0", "tangent velocities"},
		{"264", "25,0,0,0", "tangent bias"},
	} {
		cf, err := LoadClips(curveFile(t, []string{"0", "90", "0"}, attrs(c.flags, c.data, 3)), gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Join(cf.Notes, "\n"); !strings.Contains(n, c.want) || !strings.Contains(n, `take "Wave"`) || !strings.Contains(n, `"Arm"`) {
			t.Errorf("flags %s: notes %q, want %q", c.flags, cf.Notes, c.want)
		}
	}
}
