package exr

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/x448/float16"
)

func randomTexture(w, h, channels int) *Image {
	rng := rand.New(rand.NewPCG(3, 4))
	t := &Image{Width: w, Height: h, Channels: channels, Data: make([]float32, w*h*channels)}
	for i := range t.Data {
		t.Data[i] = float32(rng.NormFloat64() * 3)
	}
	return t
}

// asHalf rounds a texture's values as half floats store them.
func asHalf(t *Image) *Image {
	c := *t
	c.Data = make([]float32, len(t.Data))
	for i, v := range t.Data {
		c.Data[i] = float16.Fromfloat32(v).Float32()
	}
	return &c
}

func TestEXRRoundTrip(t *testing.T) {
	for _, half := range []bool{false, true} {
		for _, zip := range []bool{false, true} {
			for _, ch := range []int{3, 4} {
				src := randomTexture(37, 41, ch) // 41 rows: a short last ZIP chunk
				got, err := Decode("t.exr", Encode(src, half, zip), ch)
				if err != nil {
					t.Fatal(err)
				}
				want := src
				if half {
					want = asHalf(src)
				}
				if got.Width != 37 || got.Height != 41 || !slices.Equal(got.Data, want.Data) {
					t.Errorf("half %v zip %v, %d channels: values differ after the round trip", half, zip, ch)
				}
			}
		}
	}
}

// TestEXRWithOIIO checks the EXR files against OpenImageIO (Debian's
// openimageio-tools): oiiotool must read our files with the header and pixels we
// meant, and we must read the ZIP files oiiotool writes. oiiotool runs twice in
// all, not twice a file (each run spends about a third of a second of CPU
// starting): once to describe and dump every file, once to write its own ZIP
// copy of each.
func TestEXRWithOIIO(t *testing.T) {
	tool, err := exec.LookPath("oiiotool")
	if err != nil {
		t.Skip("oiiotool not installed (apt-get install openimageio-tools)")
	}
	dir := t.TempDir()
	type file struct {
		name, path, theirs string
		half, zip          bool
		ch                 int
		want               *Image
	}
	var files []file
	for _, half := range []bool{false, true} {
		for _, zip := range []bool{false, true} {
			for _, ch := range []int{3, 4} {
				f := file{name: fmt.Sprintf("half%v_zip%v_%d", half, zip, ch), half: half, zip: zip, ch: ch}
				f.path, f.theirs = filepath.Join(dir, f.name+".exr"), filepath.Join(dir, f.name+"_oiio.exr")
				src := randomTexture(23, 35, ch)
				if err := os.WriteFile(f.path, Encode(src, half, zip), 0o644); err != nil {
					t.Fatal(err)
				}
				f.want = src
				if half {
					f.want = asHalf(src)
				}
				files = append(files, f)
			}
		}
	}
	// One run says what each file is and dumps its pixels, file by file, each
	// part starting with "Reading FILE".
	args := []string{"--info", "-v", "--dumpdata"}
	for _, f := range files {
		args = append(args, f.path)
	}
	info, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("oiiotool --info --dumpdata: %v\n%s", err, info)
	}
	rest := string(info)
	for i, f := range files {
		if !strings.HasPrefix(rest, "Reading "+f.path+"\n") {
			t.Fatalf("oiiotool --info: the part for %s does not start with its name:\n%.500s", f.name, rest)
		}
		part := rest
		if i+1 < len(files) {
			k := strings.Index(rest, "\nReading "+files[i+1].path+"\n")
			if k < 0 {
				t.Fatalf("oiiotool --info: no part for %s", files[i+1].name)
			}
			part, rest = rest[:k+1], rest[k+1:]
		}
		wantType, wantComp := "float", `compression: "none"`
		if f.half {
			wantType = "half"
		}
		if f.zip {
			wantComp = `compression: "zip"`
		}
		head := fmt.Sprintf("23 x   35, %d channel, %s openexr", f.ch, wantType)
		if !strings.Contains(part, head) || !strings.Contains(part, wantComp) {
			t.Errorf("%s: oiiotool says\n%s\nwant %q and %q", f.name, part, head, wantComp)
		}
		checkDump(t, f.name, []byte(part), f.want)
	}

	// oiiotool's own ZIP file of the same pixels, read back by us.
	args = nil
	for _, f := range files {
		args = append(args, f.path, "--compression", "zip", "-o", f.theirs)
	}
	if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		t.Fatalf("oiiotool -o: %v\n%s", err, out)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f.theirs)
		got, err := Decode(f.theirs, b, f.ch)
		if err != nil {
			t.Fatalf("%s: reading oiiotool's file: %v", f.name, err)
		}
		if !slices.Equal(got.Data, f.want.Data) {
			t.Errorf("%s: oiiotool's ZIP file reads back different values", f.name)
		}
	}
}

// checkDump compares oiiotool --dumpdata lines "Pixel (x, y): v v v" with t.
func checkDump(t *testing.T, name string, dump []byte, want *Image) {
	t.Helper()
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(dump))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var x, y int
		if _, err := fmt.Sscanf(line, "Pixel (%d, %d):", &x, &y); err != nil {
			continue
		}
		fields := strings.Fields(line[strings.Index(line, ":")+1:])
		if len(fields) != want.Channels {
			t.Fatalf("%s: %q: want %d values", name, line, want.Channels)
		}
		for c, f := range fields {
			var v float64
			fmt.Sscan(f, &v)
			w := float64(want.Data[(y*want.Width+x)*want.Channels+c])
			if math.Abs(v-w) > 1e-8*max(1, math.Abs(w)) {
				t.Fatalf("%s: pixel (%d, %d) channel %d: oiiotool reads %v, we wrote %v", name, x, y, c, v, w)
			}
		}
		n++
	}
	if n != want.Width*want.Height {
		t.Errorf("%s: oiiotool dumped %d pixels, want %d", name, n, want.Width*want.Height)
	}
}
