package viewer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/species/creatures"
)

var (
	builtinOnce   sync.Once
	builtinAssets []*Asset
	builtinErr    error
)

// builtins bakes the built-in species in memory once for the tests.
func builtins(t testing.TB) []*Asset {
	t.Helper()
	builtinOnce.Do(func() { builtinAssets, _, builtinErr = Default(t.TempDir(), creatures.All()) })
	if builtinErr != nil {
		t.Fatal(builtinErr)
	}
	return builtinAssets
}

func post(t testing.TB, s *Server, body string) (*httptest.ResponseRecorder, crowdJSON) {
	t.Helper()
	req := httptest.NewRequest("POST", "http://127.0.0.1:1234/api/crowd", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TokenHeader, s.Token())
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var j crowdJSON
	if rec.Code == 200 {
		if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
	}
	return rec, j
}

// stepAnswer is a decoded step answer.
type stepAnswer struct {
	step, focusClip int
	phase, rate     float32
	alive           [2]int
	counts          []int
	records         []float32
}

func decodeStep(t testing.TB, b []byte) stepAnswer {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < stepHeader || string(b[:4]) != StepMagic {
		t.Fatalf("step answer of %d bytes does not start with %s", len(b), StepMagic)
	}
	a := stepAnswer{step: int(le.Uint32(b[4:])), focusClip: int(int32(le.Uint32(b[12:]))),
		phase: math.Float32frombits(le.Uint32(b[16:])), rate: math.Float32frombits(le.Uint32(b[20:])),
		alive: [2]int{int(le.Uint32(b[24:])), int(le.Uint32(b[28:]))}}
	n := int(le.Uint32(b[8:]))
	o, total := stepHeader, 0
	for range n {
		a.counts = append(a.counts, int(le.Uint32(b[o:])))
		total += a.counts[len(a.counts)-1]
		o += 4
	}
	if len(b)-o != total*RecordFloats*4 {
		t.Fatalf("%d record bytes for %d units", len(b)-o, total)
	}
	for ; o < len(b); o += 4 {
		a.records = append(a.records, math.Float32frombits(le.Uint32(b[o:])))
	}
	return a
}

func step(t *testing.T, s *Server, id int, query string) stepAnswer {
	t.Helper()
	rec := get(t, s, fmt.Sprintf("/api/crowd/%d/step?%s", id, query))
	if rec.Code != 200 {
		t.Fatalf("step %s: %d %s", query, rec.Code, rec.Body)
	}
	return decodeStep(t, rec.Body.Bytes())
}

// TestBattleIsTheGame: the records the step endpoint sends for a battle are,
// unit for unit, what battle.New and Step give a game for the same seed and
// steps, on a registry loaded here from the same species.
func TestBattleIsTheGame(t *testing.T) {
	assets := builtins(t)
	s := New(assets)
	rec, j := post(t, s, `{"layout":"battle","count":600,"seed":42}`)
	if rec.Code != 200 || j.Layout != "battle" || j.Note != "" {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	reg := builtinRegistry(t)
	assetOf := map[unit.SpeciesID]int{}
	for _, sp := range creatures.All() {
		for k, a := range assets {
			if a.Name == sp.Name {
				assetOf[unit.SpeciesID(sp.ID)] = k
			}
		}
	}
	game := battle.New(reg, 600, 42)
	rider := map[int32]int{}
	for i := range game.Len() {
		if h := game.Mount(i); h >= 0 {
			rider[h] = i
		}
	}
	horses, fading, fought := 0, 0, false
	for k := range 300 {
		dt := float32(1.0 / 30)
		if k%7 == 3 {
			dt = 0.05
		}
		if err := game.Step(dt); err != nil {
			t.Fatal(err)
		}
		got := step(t, s, j.ID, fmt.Sprintf("dt=%v", dt))
		// The expected records: per asset, its species' units in unit order, riders
		// left to their horses.
		var want [][RecordFloats]float32
		fade := func(r []float32, b crowd.Blend) {
			copy(r, []float32{float32(b.Frame), float32(b.Next), b.Lerp, b.Weight, float32(b.PriorFrame), float32(b.PriorNext), b.PriorLerp, b.PriorWeight})
			if b.Weight > 0 {
				fading++
			}
		}
		for a := range assets {
			for u := range game.Len() {
				if assetOf[game.Crowd.Species[u]] != a || game.Mount(u) >= 0 {
					continue
				}
				o := game.Crowd.Out[u]
				r := [RecordFloats]float32{float32(o.Frame), float32(o.Next), o.Lerp, 8: game.World.X[u], 9: game.World.Z[u], 10: game.Heading[u]}
				fade(r[16:24], game.Crowd.Blend[u])
				if ri, ok := rider[int32(u)]; ok {
					ro := game.Crowd.Out[ri]
					r[12], r[13], r[14] = float32(ro.Frame), float32(ro.Next), ro.Lerp
					fade(r[24:32], game.Crowd.Blend[ri])
					horses++
				}
				want = append(want, r)
			}
		}
		if len(got.records) != len(want)*RecordFloats {
			t.Fatalf("step %d: %d records, want %d", k, len(got.records)/RecordFloats, len(want))
		}
		for i, w := range want {
			g := got.records[i*RecordFloats : (i+1)*RecordFloats]
			for _, f := range []int{0, 1, 2, 8, 9, 10, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31} {
				if g[f] != w[f] {
					t.Fatalf("step %d, record %d field %d: %v, the game has %v (record %v)", k, i, f, g[f], w[f], g)
				}
			}
		}
		if a := got.alive; a != [2]int{game.Alive(0), game.Alive(1)} {
			t.Fatalf("alive %v, the game has %d %d", a, game.Alive(0), game.Alive(1))
		}
		fought = fought || game.Alive(0)+game.Alive(1) < 590
	}
	if horses == 0 {
		t.Error("no horse carried a rider")
	}
	if fading == 0 {
		t.Error("no unit faded between clips: the test saw no fade")
	}
	if !fought {
		t.Error("nobody died in the battle: the test saw no combat")
	}
}

// TestParadeIsTheBatch: the parade's records are crowd.Batch's output for the
// units' clips and phases, which are bpat.Resolve's frames; phases advance by
// rate·dt with rates about 1/duration; riders play the rider table's clip for
// their horse's state.
func TestParadeIsTheBatch(t *testing.T) {
	assets := builtins(t)
	s := New(assets)
	c, err := s.NewScene(SceneParams{Layout: LayoutParade, Count: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in := StepInput{Focus: 0, Seek: math.NaN()}
	if _, err := c.Step(0, in); err != nil {
		t.Fatal(err)
	}
	dt := float32(0.04)
	for k := range 30 {
		if _, err := c.prepare(dt, in); err != nil {
			t.Fatal(err)
		}
		p := c.play
		ref := &crowd.Batch{Species: slices.Clone(p.Species), Clip: slices.Clone(p.Clip),
			Phase: append([]float32(nil), p.Phase...), Rate: append([]float32(nil), p.Rate...), Out: make([]crowd.Instance, p.Len())}
		if err := c.advance(dt); err != nil {
			t.Fatal(err)
		}
		if err := ref.Step(c.regs.reg, dt); err != nil {
			t.Fatal(err)
		}
		for i := range c.Len() {
			a := assets[c.unitAsset[i]]
			r := c.Records[i*RecordFloats:]
			o := ref.Out[i]
			if r[0] != float32(o.Frame) || r[1] != float32(o.Next) || r[2] != o.Lerp {
				t.Fatalf("step %d unit %d: record %v, batch %+v", k, i, r[:3], o)
			}
			cl := a.file.Clips()[o.Clip]
			want := bpat.Resolve(float64(ref.Phase[i]), cl.FrameCount, cl.Loops)
			if int(r[0]) != cl.FrameOffset+want.Frame || int(r[1]) != cl.FrameOffset+want.Next || r[2] != want.Lerp {
				t.Fatalf("unit %d (%s %s) at phase %v: record %v, bpat.Resolve %+v", i, a.Name, cl.Name, ref.Phase[i], r[:3], want)
			}
			if d := cl.Duration(); d > 0 {
				if rate := float64(ref.Rate[i]) * d; rate < 0.9-1e-5 || rate > 1.1+1e-5 {
					t.Fatalf("unit %d: rate %v per second for a clip of %v s", i, ref.Rate[i], d)
				}
			}
		}
	}
	// Riders: a horse on gallop (its Run state) carries a rider on riding_charge.
	h := -1
	for k, a := range assets {
		if a.Name == "horse" {
			h = k
		}
	}
	hum := assets[c.Rider[h]]
	if hum.Name != "humanoid" {
		t.Fatalf("the parade's horses carry %s", hum.Name)
	}
	gallop := assets[h].file.ClipIndex("gallop")
	charge := hum.file.Clips()[hum.file.ClipIndex("riding_charge")]
	n := 0
	for i := c.First[h]; i < c.First[h]+c.Count[h]; i++ {
		if int(c.play.Clip[i]) != gallop {
			continue
		}
		n++
		if f := int(c.Records[i*RecordFloats+recRider]); f < charge.FrameOffset || f >= charge.FrameOffset+charge.FrameCount {
			t.Errorf("a galloping horse's rider plays row %d, not riding_charge's %d..%d", f, charge.FrameOffset, charge.FrameOffset+charge.FrameCount-1)
		}
	}
	if n == 0 {
		t.Error("no horse gallops in the parade")
	}
}

// TestCrowdOverride: a clip chosen for an asset plays on all its units, in the
// parade and in a battle, and the focus reports it.
func TestCrowdOverride(t *testing.T) {
	assets := builtins(t)
	s := New(assets)
	for _, layout := range []string{"parade", "battle"} {
		_, j := post(t, s, `{"layout":"`+layout+`","count":300,"seed":1}`)
		got := step(t, s, j.ID, "dt=0.02&focus=0&clips=0:5")
		if got.focusClip != 5 {
			t.Errorf("%s: focus clip %d, want 5", layout, got.focusClip)
		}
		walk := assets[0].file.Clips()[5]
		for i := range got.counts[0] {
			if f := int(got.records[i*RecordFloats]); f < walk.FrameOffset || f >= walk.FrameOffset+walk.FrameCount {
				t.Fatalf("%s: unit %d plays row %d, outside clip 5", layout, i, f)
			}
		}
		sk := step(t, s, j.ID, "dt=0&focus=0&clips=0:5&seek=0.25")
		if sk.phase != 0.25 {
			t.Errorf("%s: seek to 0.25 gave phase %v", layout, sk.phase)
		}
	}
}

func TestCrowdBadParameters(t *testing.T) {
	s := New(builtins(t))
	for _, body := range []string{``, `{`, `{"layout":"circle","count":5}`, `{"layout":"parade","count":0}`,
		`{"layout":"parade","count":20001}`, `{"layout":"parade","count":5,"only":6}`, `{"layout":"parade","count":5,"only":-1}`,
		`{"layout":"parade","count":5,"assets":[{"scale":1,"spacing":1}]}`, `{"layout":"parade","count":5,"extra":1}`,
		`{"layout":"parade","count":5,"assets":[{"scale":0,"spacing":1},{},{},{},{},{}]}`} {
		if rec, _ := post(t, s, body); rec.Code != 400 || rec.Body.Len() < 10 {
			t.Errorf("POST %s: %d %q, want 400 with a message", body, rec.Code, rec.Body)
		}
	}
	_, j := post(t, s, `{"layout":"parade","count":5}`)
	for _, q := range []string{"", "dt=-1", "dt=2", "dt=NaN", "dt=x", "dt=0&focus=6", "dt=0&focus=x", "dt=0&clips=0:99",
		"dt=0&clips=9:0", "dt=0&clips=0", "dt=0&seek=Inf", "dt=0&seek=x"} {
		rec := get(t, s, fmt.Sprintf("/api/crowd/%d/step?%s", j.ID, q))
		if rec.Code != 400 || rec.Body.Len() < 10 {
			t.Errorf("step?%s: %d %q, want 400 with a message", q, rec.Code, rec.Body)
		}
	}
	if rec := get(t, s, fmt.Sprintf("/api/crowd/%d/step?dt=0", j.ID+1)); rec.Code != 404 {
		t.Errorf("an unknown crowd: %d", rec.Code)
	}
	if rec := get(t, s, "/api/crowd"); rec.Code != 405 {
		t.Errorf("GET /api/crowd: %d", rec.Code)
	}
}

// TestCrowdEviction: the server keeps MaxCrowds crowds, dropping the oldest.
func TestCrowdEviction(t *testing.T) {
	s := New(builtins(t))
	var ids []int
	for range MaxCrowds + 3 {
		rec, j := post(t, s, `{"layout":"parade","count":20000}`)
		if rec.Code != 200 {
			t.Fatal(rec.Body)
		}
		ids = append(ids, j.ID)
	}
	if n := s.Crowds(); n != MaxCrowds {
		t.Errorf("%d crowds held, want %d", n, MaxCrowds)
	}
	for k, id := range ids {
		code := get(t, s, fmt.Sprintf("/api/crowd/%d/step?dt=0", id)).Code
		if want := map[bool]int{true: 404, false: 200}[k < 3]; code != want {
			t.Errorf("crowd %d (made %d of %d): %d, want %d", id, k+1, len(ids), code, want)
		}
	}
}

// TestCrowdNotInBattle: a glTF model cannot fight; the battle says so and a
// crowd of it alone is a parade.
func TestCrowdNotInBattle(t *testing.T) {
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	s := New(append(append([]*Asset(nil), builtins(t)...), fox))
	_, j := post(t, s, `{"layout":"battle","count":100}`)
	if j.Layout != "battle" || j.Assets[6].Units != 0 || !bytes.Contains([]byte(j.Note), []byte("Fox (not a built-in species)")) {
		t.Errorf("battle with the Fox: %+v", j)
	}
	_, j = post(t, s, `{"layout":"battle","count":100,"only":6}`)
	if j.Layout != "parade" || j.Assets[6].Units != 100 || j.Note == "" {
		t.Errorf("a battle of the Fox alone: %+v", j)
	}
}

// BenchmarkCrowdStep is the step endpoint's server cost for 20,000 units: the
// runtime's step, the records and the binary answer, through ServeHTTP.
func BenchmarkCrowdStep(b *testing.B) {
	s := New(builtins(b))
	for _, layout := range []string{"parade", "battle"} {
		b.Run(layout, func(b *testing.B) {
			rec, j := post(b, s, `{"layout":"`+layout+`","count":20000,"seed":1}`)
			if rec.Code != 200 {
				b.Fatal(rec.Body)
			}
			url := fmt.Sprintf("http://127.0.0.1:1234/api/crowd/%d/step?dt=0.0166&focus=0", j.ID)
			b.ReportAllocs()
			b.ResetTimer()
			req := httptest.NewRequest("GET", url, nil)
			req.Header.Set(TokenHeader, s.Token())
			for range b.N {
				// The answer goes nowhere, as to a socket: a recorder would
				// add a copy of its megabytes into a growing buffer each step.
				w := &discardResponse{}
				s.ServeHTTP(w, req)
				if w.code != 200 || w.n < 1<<20 { // tens of thousands of 128-byte records
					b.Fatalf("HTTP %d, %d bytes", w.code, w.n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20000, "ns/unit")
		})
	}
}

// builtinRegistry is a registry of the built-in creatures, baked in memory, as a
// game would load them; it is closed when the test ends.
func builtinRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New()
	t.Cleanup(func() { reg.Close() })
	for _, sp := range creatures.All() {
		b, err := sp.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Load(registry.Memory(registry.File{Name: sp.Name + ".bpat", Data: b})); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// A battle's units play nothing before its first step (a paused page asks for
// steps of no time): the answer names no focus clip then (−1), not the
// runtime's NoClip, which the page would take for a clip number; after a step
// it names the focus unit's clip, one of its asset's.
func TestBattleFocusBeforeFirstStep(t *testing.T) {
	s := New(builtins(t))
	_, j := post(t, s, `{"layout":"battle","count":100,"seed":3}`)
	clip := func(query string) int32 {
		t.Helper()
		b := get(t, s, fmt.Sprintf("/api/crowd/%d/step?%s", j.ID, query)).Body.Bytes()
		return int32(binary.LittleEndian.Uint32(b[12:]))
	}
	if c := clip("dt=0&focus=0"); c != -1 {
		t.Errorf("before the first step: focus clip %d, want -1", c)
	}
	c := clip("dt=0.033&focus=0")
	if n := len(s.assets[0].file.Clips()); c < 0 || int(c) >= n {
		t.Errorf("after a step: focus clip %d, want one of the asset's %d", c, n)
	}
}

// discardResponse is an http.ResponseWriter that counts the body's bytes and
// keeps none of them.
type discardResponse struct {
	h    http.Header
	code int
	n    int
}

func (d *discardResponse) Header() http.Header {
	if d.h == nil {
		d.h = http.Header{}
	}
	return d.h
}

func (d *discardResponse) WriteHeader(code int) { d.code = code }

func (d *discardResponse) Write(b []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	d.n += len(b)
	return len(b), nil
}

// TestPutFloats: both ways of writing a step answer's floats give
// encoding/binary's little-endian bytes, NaN and signed zero included.
func TestPutFloats(t *testing.T) {
	fs := []float32{0, float32(math.Copysign(0, -1)), 1, -2.5, 3.4e38, 1e-45, float32(math.NaN()), float32(math.Inf(-1)), 1234.5678}
	want := make([]byte, 0, 4*len(fs))
	for _, v := range fs {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(v))
	}
	for name, put := range map[string]func([]byte, []float32){"putFloats": putFloats, "putFloatsEach": putFloatsEach} {
		got := make([]byte, 4*len(fs)+3)
		put(got, fs)
		if !bytes.Equal(got[:4*len(fs)], want) || !bytes.Equal(got[4*len(fs):], []byte{0, 0, 0}) {
			t.Errorf("%s: % x\nwant % x", name, got, want)
		}
	}
	putFloats(nil, nil) // nothing to write: no panic
}
