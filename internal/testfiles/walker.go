package testfiles

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The synthetic walker's ground speed (m/s) and its planted feet's height (m).
const (
	WalkerSpeed      = 1.4
	WalkerFootHeight = 0.08
)

// WalkerGLTF writes into a temporary folder, as raw glTF JSON with no help from
// bonebake, a biped with one animation, "Walk", whose feet are planted for 60 % of
// a 1 s cycle and slide back at exactly WalkerSpeed (1.4 m/s) while they are (in
// place), or stand still while the root travels forward at 1.4 m/s (root motion:
// relative to the root they slide back as in place), and returns its path. Bones:
// Root, Pelvis, FootL, FootR (no inverse bind matrices); keys every 1/60 s; a
// planted foot stands WalkerFootHeight above the ground (y = 0).
func WalkerGLTF(t testing.TB, rootMotion bool) string { return walkerGLTF(t, rootMotion, false) }

// StraferGLTF writes the walker of WalkerGLTF (in place) with a second
// animation, "Strafe": the same stances and speed toward +x, the feet side by
// side as in Walk, so that its planted feet slide back along −x. Its clips
// travel along +z and +x: a strafe, across the way the walker faces.
func StraferGLTF(t testing.TB) string { return walkerGLTF(t, false, true) }

func walkerGLTF(t testing.TB, rootMotion, strafe bool) string {
	const (
		v, keys, stance = WalkerSpeed, 60, 0.6
	)
	foot := func(q float64) (z, y float64) {
		q -= math.Floor(q)
		if q < stance {
			return v*stance/2 - v*q, WalkerFootHeight
		}
		u := (q - stance) / (1 - stance)
		return -v*stance/2 + v*stance*u*u*(3-2*u), WalkerFootHeight + 0.12*math.Sin(math.Pi*u)
	}
	// tracks are an animation's keys: times, then Root's, Pelvis's and the
	// feet's translations; sideways puts the feet's travel on x.
	tracks := func(sideways bool) [][]float32 {
		var times, root, pelvis, footL, footR []float32
		for k := 0; k <= keys; k++ {
			tt := float64(k) / keys
			times = append(times, float32(tt))
			travel := 0.0
			if rootMotion {
				travel = v * tt
			}
			root = append(root, 0, 0, float32(travel))
			pelvis = append(pelvis, 0, 1, 0)
			for s, dst := range []*[]float32{&footL, &footR} {
				z, y := foot(tt + 0.5*float64(s))
				x := 0.1 - 0.2*float64(s)
				if sideways {
					x, z = x+z, 0
				}
				*dst = append(*dst, float32(x), float32(y-1), float32(z))
			}
		}
		return [][]float32{times, root, pelvis, footL, footR}
	}
	var buf []byte
	view := func(fs []float32) (off, n int) {
		off = len(buf)
		for _, f := range fs {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		return off, len(buf) - off
	}
	type acc struct {
		off, n, count int
		typ           string
		min, max      string
	}
	var accs []acc
	add := func(fs []float32, typ string) int {
		off, n := view(fs)
		c := len(fs)
		if typ == "VEC3" {
			c /= 3
		}
		a := acc{off: off, n: n, count: c, typ: typ}
		if typ == "SCALAR" {
			a.min, a.max = fmt.Sprint(fs[0]), fmt.Sprint(fs[len(fs)-1])
		}
		accs = append(accs, a)
		return len(accs) - 1
	}
	anims := []string{"Walk"}
	if strafe {
		anims = append(anims, "Strafe")
	}
	var animJSON []string
	for _, name := range anims {
		tr := tracks(name == "Strafe")
		tIn := add(tr[0], "SCALAR")
		chans := ""
		samplers := ""
		for i, tr := range tr[1:] {
			o := add(tr, "VEC3")
			if i > 0 {
				chans += ","
				samplers += ","
			}
			chans += fmt.Sprintf(`{"sampler":%d,"target":{"node":%d,"path":"translation"}}`, i, i)
			samplers += fmt.Sprintf(`{"input":%d,"output":%d,"interpolation":"LINEAR"}`, tIn, o)
		}
		animJSON = append(animJSON, fmt.Sprintf(`{"name":%q,"channels":[%s],"samplers":[%s]}`, name, chans, samplers))
	}
	var views, accJSON []string
	for i, a := range accs {
		views = append(views, fmt.Sprintf(`{"buffer":0,"byteOffset":%d,"byteLength":%d}`, a.off, a.n))
		mm := ""
		if a.min != "" {
			mm = fmt.Sprintf(`,"min":[%s],"max":[%s]`, a.min, a.max)
		}
		accJSON = append(accJSON, fmt.Sprintf(`{"bufferView":%d,"componentType":5126,"count":%d,"type":"%s"%s}`, i, a.count, a.typ, mm))
	}
	doc := fmt.Sprintf(`{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"name":"Root","children":[1]},{"name":"Pelvis","translation":[0,1,0],"children":[2,3]},
{"name":"FootL","translation":[0.1,-0.92,0]},{"name":"FootR","translation":[-0.1,-0.92,0]}],
"skins":[{"joints":[0,1,2,3]}],
"animations":[%s],
"buffers":[{"byteLength":%d,"uri":"data:application/octet-stream;base64,%s"}],
"bufferViews":[%s],"accessors":[%s]}`, strings.Join(animJSON, ","), len(buf), base64.StdEncoding.EncodeToString(buf),
		strings.Join(views, ","), strings.Join(accJSON, ","))
	path := filepath.Join(t.TempDir(), "walker.gltf")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
