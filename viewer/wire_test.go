package viewer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var writeWire = flag.Bool("write-wire", false, "write web/wire.js from wire.go")

// TestWireJSCurrent: the page reads the answers by web/wire.js, which must be
// what wire.go generates (go generate ./viewer writes it).
func TestWireJSCurrent(t *testing.T) {
	want := wireJS()
	if *writeWire {
		if err := os.WriteFile("web/wire.js", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := webFS.ReadFile("web/wire.js")
	if err != nil {
		t.Fatal(err)
	}
	if !*writeWire && !bytes.Equal(got, want) {
		t.Errorf("web/wire.js is not what wire.go generates: run go generate ./viewer")
	}
}

// TestWireReaders: the modules that read answers or records take the layout
// from wire.js and define none of its constants themselves, so that a change
// in wire.go reaches every reader.
func TestWireReaders(t *testing.T) {
	names := map[string]bool{}
	for _, c := range wireConstants {
		names[c.js] = true
	}
	def := regexp.MustCompile(`(?m)\b(?:const|let|var)\s+([A-Z_]+)\s*=`)
	for _, f := range []string{"state.js", "crowd.js", "clock.js", "gl.js", "lod.js"} {
		src, err := webFS.ReadFile("web/" + f)
		if err != nil {
			t.Fatal(err)
		}
		imports := false
		for _, s := range importsOf(string(src)) {
			imports = imports || s == "./wire.js"
		}
		if !imports {
			t.Errorf("web/%s does not import ./wire.js", f)
		}
		for _, m := range def.FindAllStringSubmatch(string(src), -1) {
			if names[m[1]] {
				t.Errorf("web/%s defines %s, which wire.js exports", f, m[1])
			}
		}
	}
}

// TestWireHeader: a header appendHeader writes has each field at the offset
// wire.js gives the page.
func TestWireHeader(t *testing.T) {
	s := New(builtins(t))
	post(t, s, `{"layout":"battle","count":60,"seed":1}`)
	c := s.crowds.get(1).c
	c.Steps = 7
	b := c.appendHeader(nil, StepMagic, Focus{Clip: -1, Phase: 0.25, Rate: 1.5})
	le := binary.LittleEndian
	alive := c.Alive()
	at := map[string]int{}
	for _, w := range wireConstants {
		at[w.js] = w.value
	}
	u32 := func(name string, k int) uint32 { return le.Uint32(b[at[name]+4*k:]) }
	f32 := func(name string) float32 { return math.Float32frombits(u32(name, 0)) }
	if int(le.Uint32(b)) != at["STEP_MAGIC"] {
		t.Errorf("magic %#x, wire.js %#x", le.Uint32(b), at["STEP_MAGIC"])
	}
	if u32("HDR_STEP", 0) != 7 || int(u32("HDR_ASSETS", 0)) != len(c.assets) || int32(u32("HDR_FOCUS_CLIP", 0)) != -1 ||
		f32("HDR_FOCUS_PHASE") != 0.25 || f32("HDR_FOCUS_RATE") != 1.5 ||
		int(u32("HDR_ALIVE", 0)) != alive[0] || int(u32("HDR_ALIVE", 1)) != alive[1] || alive[0] == 0 {
		t.Errorf("header %v: fields not at wire.js's offsets (alive %v, assets %d)", b[:at["HEADER"]], alive, len(c.assets))
	}
	for k, n := range c.Count {
		if int(u32("HEADER", k)) != n {
			t.Errorf("unit count %d: %d, want %d", k, u32("HEADER", k), n)
		}
	}
	if len(b) != at["HEADER"]+4*len(c.Count) {
		t.Errorf("header and counts: %d bytes, want %d", len(b), at["HEADER"]+4*len(c.Count))
	}
}

// TestWireJSEvaluates: wire.js is a module node can load, exporting each
// constant with its value.
func TestWireJSEvaluates(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/wire.mjs", wireJS(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "--input-type=module", "-e",
		"import * as w from '"+dir+"/wire.mjs'; console.log(JSON.stringify(w));").CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got map[string]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, c := range wireConstants {
		if v, ok := got[c.js]; !ok || v != c.value {
			t.Errorf("wire.js %s = %v (%v), want %d", c.js, v, ok, c.value)
		}
	}
	if len(got) != len(wireConstants) {
		t.Errorf("wire.js exports %d names, want %d", len(got), len(wireConstants))
	}
}

// TestWireClockShader: the resolve pass (web/clock.vert.glsl) reads a clock
// entry's texels where wire.go lays them out: the stride of CLOCK/4 texels,
// tint and place in texels 0 and 1, the unit's crowd.TimeRecord from word 8
// (its playheads Own, From, Prior, then its times) and the rider's after it,
// its travel from CLOCK_TRAVEL; and its entries a row agree with clock.js's.
func TestWireClockShader(t *testing.T) {
	src, err := webFS.ReadFile("web/clock.vert.glsl")
	if err != nil {
		t.Fatal(err)
	}
	glsl := string(src)
	if m := regexp.MustCompile(`\(e % PER_ROW\) \* (\d+)u \+ k`).FindStringSubmatch(glsl); m == nil || m[1] != strconv.Itoa(clockFloats/4) {
		t.Errorf("clock.vert.glsl: an entry's stride %v, want %d texels", m, clockFloats/4)
	}
	own := 8 / 4 // texels: tint and place come first
	rider := own + timeRecordWord/4
	want := []string{
		"o_tint = uintBitsToFloat(entry(e, 0u))",
		"o_place = uintBitsToFloat(entry(e, 1u))",
		"uvec4 own = entry(e, " + strconv.Itoa(own) + "u), riderOwn = entry(e, " + strconv.Itoa(rider) + "u)",
		"uvec4 times = entry(e, " + strconv.Itoa(own+3) + "u), riderTimes = entry(e, " + strconv.Itoa(rider+3) + "u)",
		"resolve(own, entry(e, " + strconv.Itoa(own+1) + "u), entry(e, " + strconv.Itoa(own+2) + "u), times",
		"resolve(riderOwn, entry(e, " + strconv.Itoa(rider+1) + "u), entry(e, " + strconv.Itoa(rider+2) + "u), riderTimes",
		"vec4 travel = uintBitsToFloat(entry(e, " + strconv.Itoa(clockTravel/4) + "u))",
	}
	for _, w := range want {
		if !strings.Contains(glsl, w) {
			t.Errorf("clock.vert.glsl does not read %q", w)
		}
	}
	js, err := webFS.ReadFile("web/clock.js")
	if err != nil {
		t.Fatal(err)
	}
	perRow := regexp.MustCompile(`const uint PER_ROW = (\d+)u;`).FindStringSubmatch(glsl)
	jsRow := regexp.MustCompile(`const PER_ROW = (\d+);`).FindStringSubmatch(string(js))
	if perRow == nil || jsRow == nil || perRow[1] != jsRow[1] {
		t.Errorf("entries a row: clock.vert.glsl %v, clock.js %v", perRow, jsRow)
	}
}
