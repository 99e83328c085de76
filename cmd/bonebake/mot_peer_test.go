package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/mot"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// peerMot is what the bayonetta_tools peer's run.sh writes per file
// (../shared/peers/bayonetta_tools/README.md): values as big-endian float64 hex.
type peerMot struct {
	OK      bool   `json:"ok"`
	Error   string `json:"error"`
	Class   string `json:"class"`
	WasBig  bool   `json:"was_big"`
	Frames  int    `json:"frames"`
	Flags   uint16 `json:"flags"`
	Records []struct {
		Bone        int16    `json:"bone"`
		Track       uint8    `json:"track"`
		Type        int8     `json:"type"`
		Values      []string `json:"values"`
		FrameValues []string `json:"frame_values"`
	} `json:"records"`
}

// peerWritten is one file the test wrote with the commands, and what it promises.
type peerWritten struct {
	path, src, how string
	family         mot.Family
	order          binary.ByteOrder
	// diff is, for convert, the largest difference its summary reported per
	// re-expressed track ("bone/track"); tracks not in it must be identical.
	diff map[string]float64
	// tol is encode's tolerance; allTypes says --bayo1-all-types was given.
	tol      float64
	encode   bool
	allTypes bool
}

// reexpressedLine is one track of convert's summary.
var reexpressedLine = regexp.MustCompile(`(?m)^  bone (-?\d+) track (\d+): type \d+ → \d+ \(not \d+\), \d+ → \d+ bytes, (?:largest difference (\S+)|values identical)$`)

// TestMotFilesOpenInBayonettaTools writes, with 'mot convert' and 'mot encode',
// every test motion in both families and both byte orders, and opens each file
// with the modding community's own reader (bayonetta_tools, run by the peer's
// run.sh): it must open every file written by default, Bayonetta 1 included,
// with the values bonebake decodes bit for bit, and those values must be the
// source's (convert: identical but for the tracks its summary reports, within
// the difference reported; encode: within the tolerance). Files written with
// --bayo1-all-types must be refused exactly when they hold type 2, 3 or 5.
func TestMotFilesOpenInBayonettaTools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the community's Ruby reader on every written motion; not with -short")
	}
	peer := testfiles.Peer(t, "bayonetta_tools")
	sources := testfiles.All("mot", ".mot")
	if len(sources) == 0 {
		t.Skip("no motions in testdata/mot or ../shared/testdata/mot")
	}
	dir := t.TempDir()
	var files []peerWritten
	for i, src := range sources {
		code, out, errOut := bonebake(t, "mot", "dump", src, "--json")
		if code != 0 {
			t.Fatalf("dump %s: %d %s", src, code, errOut)
		}
		dump := filepath.Join(dir, fmt.Sprintf("%02d.json", i))
		if err := os.WriteFile(dump, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := mot.Open(src, formats.Lenient())
		if err != nil {
			t.Fatal(err)
		}
		for _, fam := range []mot.Family{mot.Bayo1, mot.Bayo2} {
			if fam == mot.Bayo1 && m.Frames > math.MaxInt16 {
				continue // refused: a Bayonetta 1 header holds 32,767 frames at most (docs/formats/mot.md §10)
			}
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				base := filepath.Join(dir, fmt.Sprintf("%02d_%s_%s", i, fam, mot.OrderName(order)))
				args := []string{"--family", fam.String(), "--byte-order", mot.OrderName(order)}
				w := peerWritten{path: base + "_convert.mot", src: src, how: "convert", family: fam, order: order, diff: map[string]float64{}}
				code, out, errOut := bonebake(t, append([]string{"mot", "convert", src, "-o", w.path}, args...)...)
				if code != 0 {
					t.Fatalf("convert %s %v: %d %s", src, args, code, errOut)
				}
				for _, sm := range reexpressedLine.FindAllStringSubmatch(out, -1) {
					d := 0.0
					if sm[3] != "" {
						if d, _ = strconv.ParseFloat(sm[3], 64); !(d > 0) {
							t.Fatalf("convert %s: difference %q in %q", src, sm[3], sm[0])
						}
					}
					w.diff[sm[1]+"/"+sm[2]] = d
				}
				files = append(files, w)
				if fam == mot.Bayo1 {
					a := w
					a.path, a.how, a.allTypes, a.diff = base+"_convert_all.mot", "convert --bayo1-all-types", true, nil
					if code, _, errOut := bonebake(t, append([]string{"mot", "convert", src, "-o", a.path, "--bayo1-all-types"}, args...)...); code != 0 {
						t.Fatalf("convert --bayo1-all-types %s %v: %d %s", src, args, code, errOut)
					}
					files = append(files, a)
				}
				e := peerWritten{path: base + "_encode.mot", src: src, how: "encode", family: fam, order: order, encode: true, tol: 1e-4}
				// Exit 1 with the file written when a track needs plain floats
				// beyond the tolerance (float32 steps over 2e-4 above 2048).
				if code, _, errOut := bonebake(t, append([]string{"mot", "encode", dump, "-o", e.path, "-q", "--tolerance", "1e-4"}, args...)...); code != 0 &&
					!(code == 1 && strings.Contains(errOut, "no record type holds within the tolerance")) {
					t.Fatalf("encode %s %v: %d %s", src, args, code, errOut)
				}
				files = append(files, e)
			}
		}
	}

	// The peer reads each distinct file once: many written files are the same
	// bytes (a motion and its other byte order's twin, written in one family
	// and order; convert and encode agreeing), and the same bytes read the
	// same. Each file's result is then checked against what that file
	// promises.
	outDir := filepath.Join(dir, "peer")
	var cmdArgs []string
	first := map[string]string{}  // content → the first file with it
	sameAs := map[string]string{} // a later file with that content → the first
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := first[string(b)]; ok {
			sameAs[f.path] = p
			continue
		}
		first[string(b)] = f.path
		cmdArgs = append(cmdArgs, f.path)
	}
	// run.sh with no files sets the reader up (installs Ruby and builds its C
	// helper on first use); without them there is nothing to compare with
	// (.ci/run installs ruby ruby-dev ruby-nokogiri).
	if out, err := exec.Command(filepath.Join(peer, "run.sh"), outDir).CombinedOutput(); err != nil {
		t.Skipf("bayonetta_tools could not be set up (%v): %.2000s", err, out)
	}
	// Then run.sh's loop, in one Ruby process: its decode.rb run on each file
	// with the arguments run.sh gives it (run.sh starts a Ruby a file, each
	// loading bayonetta_tools anew: a third of a second of CPU each, most of
	// the test's time on two cores).
	btRoot := os.Getenv("BT_ROOT")
	if btRoot == "" {
		btRoot = filepath.Join(os.TempDir(), "bayonetta_tools_peer") // run.sh's ${TMPDIR:-/tmp}/bayonetta_tools_peer
	}
	const loop = `decode, out = ARGV.shift(2); files = ARGV.dup
files.each { |f| ARGV.replace([f, File.join(out, File.basename(f, ".mot") + ".json")]); load decode }`
	ruby := exec.Command("ruby", append([]string{"-I" + filepath.Join(btRoot, "libbin", "ext", "libbin"), "-I" + filepath.Join(btRoot, "libbin", "lib"),
		"-e", loop, filepath.Join(peer, "decode.rb"), outDir}, cmdArgs...)...)
	ruby.Env = append(os.Environ(), "BT_ROOT="+btRoot)
	if out, err := ruby.CombinedOutput(); err != nil {
		t.Fatalf("bayonetta_tools' decode.rb: %v: %.2000s", err, out)
	}
	result := func(path string) string {
		return filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), ".mot")+".json")
	}
	for path, p := range sameAs {
		b, err := os.ReadFile(result(p))
		if err != nil {
			t.Fatalf("the peer wrote no result for %s: %v", p, err)
		}
		if err := os.WriteFile(result(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files written, %d distinct ones read by the peer", len(files), len(cmdArgs))

	opened, refused := 0, 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f.path), ".mot"), func(t *testing.T) {
			if checkPeerFile(t, f, outDir) {
				opened++
			} else {
				refused++
			}
		})
	}
	t.Logf("bayonetta_tools opened %d of %d files written from %d motions (%d written with --bayo1-all-types refused, as they hold types 2, 3 or 5)", opened, len(files), len(sources), refused)
}

// checkPeerFile compares the peer's reading of one written file with bonebake's
// decode of it and with the source's values. It returns whether the peer opened
// the file.
func checkPeerFile(t *testing.T, f peerWritten, outDir string) bool {
	b, err := os.ReadFile(filepath.Join(outDir, strings.TrimSuffix(filepath.Base(f.path), ".mot")+".json"))
	if err != nil {
		t.Fatalf("the peer wrote no result for %s: %v", f.path, err)
	}
	var p peerMot
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("peer result for %s: %v", f.path, err)
	}
	w, err := mot.Open(f.path) // strict: what bonebake writes is canonical
	if err != nil {
		t.Fatal(err)
	}
	src, err := mot.Open(f.src, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	unreadable := false
	for _, r := range w.Records {
		unreadable = unreadable || w.Family == mot.Bayo1 && (r.Type == 2 || r.Type == 3 || r.Type == 5)
	}
	switch {
	case unreadable && !f.allTypes:
		t.Fatalf("%s of %s wrote a Bayonetta 1 type 2, 3 or 5 without --bayo1-all-types", f.how, f.src)
	case unreadable:
		if p.OK || !strings.Contains(p.Error, "Unknown interpolation type") {
			t.Fatalf("bayonetta_tools should refuse a Bayonetta 1 type 2, 3 or 5: ok %v, %s", p.OK, p.Error)
		}
		checkAgainstSource(t, f, w, src)
		return false
	case !p.OK:
		t.Fatalf("bayonetta_tools cannot open %s (%s of %s, %s %s): %s", f.path, f.how, f.src, f.family, mot.OrderName(f.order), p.Error)
	}
	wantClass := map[mot.Family]string{mot.Bayo1: "Bayonetta::MOTFile", mot.Bayo2: "Bayonetta::MOT2File"}[f.family]
	if p.Class != wantClass || p.WasBig != (f.order == binary.BigEndian) || p.Frames != w.Frames || p.Flags != w.Flags {
		t.Fatalf("peer read class %s, big %v, %d frames, flags %#x; wrote %s %s, %d frames, flags %#x",
			p.Class, p.WasBig, p.Frames, p.Flags, f.family, mot.OrderName(f.order), w.Frames, w.Flags)
	}
	if len(p.Records) != len(w.Records) {
		t.Fatalf("peer read %d records, bonebake wrote %d", len(p.Records), len(w.Records))
	}
	vals, err := w.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range w.Records {
		pr := p.Records[i]
		if pr.Bone != r.Bone || pr.Track != r.Track || pr.Type != r.Type {
			t.Fatalf("record %d: peer read bone %d track %d type %d; written %d %d %d", i, pr.Bone, pr.Track, pr.Type, r.Bone, r.Track, r.Type)
		}
		// The peer's whole-track decoder differs from its per-frame one on
		// single keys and keys sharing a frame (its README); compare it where
		// neither is the case.
		c, _ := w.Curve(i)
		checkValues := len(c.Frames) != 1
		for k := 1; k < len(c.Frames); k++ {
			checkValues = checkValues && c.Frames[k] != c.Frames[k-1]
		}
		for _, got := range [][]string{pr.FrameValues, pr.Values} {
			if len(got) != w.Frames {
				t.Fatalf("record %d: peer gave %d values for %d frames", i, len(got), w.Frames)
			}
			for x, h := range got {
				v, err := strconv.ParseUint(h, 16, 64)
				if err != nil {
					t.Fatal(err)
				}
				if v != math.Float64bits(vals[i][x]) {
					t.Fatalf("record %d (bone %d track %d type %d) frame %d: bayonetta_tools %v (%s), bonebake %v",
						i, r.Bone, r.Track, r.Type, x, math.Float64frombits(v), h, vals[i][x])
				}
			}
			if !checkValues {
				break
			}
		}
	}
	checkAgainstSource(t, f, w, src)
	return true
}

// checkAgainstSource checks the written file's values against the source's:
// identical for convert, but for each track its summary reported, which must be
// within the difference reported (printed to 3 digits); within the tolerance for
// encode.
func checkAgainstSource(t *testing.T, f peerWritten, w, src *mot.Motion) {
	t.Helper()
	sv, err := src.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{}
	for i, r := range src.Records {
		want[fmt.Sprintf("%d/%d", r.Bone, r.Track)] = sv[i]
	}
	wv, err := w.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range w.Records {
		key := fmt.Sprintf("%d/%d", r.Bone, r.Track)
		s, ok := want[key]
		if !ok {
			t.Fatalf("record %d: track %s is not in the source", i, key)
		}
		d, reported := f.diff[key]
		worst := 0.0
		for x := range s {
			e := math.Abs(s[x] - wv[i][x])
			if !f.encode && !reported && math.Float64bits(s[x]) != math.Float64bits(wv[i][x]) {
				t.Fatalf("track %s (type %d) frame %d: %v became %v, and convert reported no difference", key, r.Type, x, s[x], wv[i][x])
			}
			if f.encode && e > f.tol && !(r.Type == 1 && float64(float32(s[x])) == wv[i][x]) {
				t.Fatalf("track %s (type %d) frame %d: encoded %v for %v, off by %g, tolerance %g", key, r.Type, x, wv[i][x], s[x], e, f.tol)
			}
			worst = max(worst, e)
		}
		switch {
		case reported && math.Abs(worst-d) > 1e-2*d:
			t.Errorf("track %s (type %d): convert reported a difference of %g, measured %g", key, r.Type, d, worst)
		}
	}
}
