package bvh

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/formattest"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// small is a two-joint file: its frame lines are lines 15 and 16.
const small = `HIERARCHY
ROOT hips
{
	OFFSET 0 1 0
	CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
	JOINT knee
	{
		OFFSET 0 -0.5 0
		CHANNELS 3 Zrotation Xrotation Yrotation
		End Site
		{
			OFFSET 0 -0.5 0
		}
	}
}
MOTION
Frames: 2
Frame Time: 0.5
0 1 0 0 0 0 10 20 30
0.5 1 0 90 0 0 0 0 0
`

func TestRealFiles(t *testing.T) {
	// Counted in the files by hand: a_biped_walk has a ROOT and 17 JOINTs,
	// soldier_walk a ROOT and 48, every one with 6 channels; their headers
	// say 25 and 26 frames of 0.041667 s.
	for _, c := range []struct {
		name            string
		joints, frames  int
		first, endSites string
	}{
		{"a_biped_walk.bvh", 18, 25, "root", "head"},
		{"soldier_walk.bvh", 49, 26, "mixamorig:Hips", "mixamorig:Head"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(testfiles.Path(t, "bvh", c.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Joints) != c.joints || f.Channels != 6*c.joints || f.Frames != c.frames || f.FrameTime != 0.041667 || len(f.Motion) != c.frames*6*c.joints {
				t.Fatalf("%d joints, %d channels, %d frames of %g s, %d values", len(f.Joints), f.Channels, f.Frames, f.FrameTime, len(f.Motion))
			}
			if f.Joints[0].Name != c.first || f.Joints[0].Parent != -1 {
				t.Fatalf("first joint %+v", f.Joints[0])
			}
			for i, j := range f.Joints[1:] {
				if j.Parent < 0 || j.Parent > i {
					t.Fatalf("joint %d %q: parent %d does not come first", i+1, j.Name, j.Parent)
				}
			}
			head := -1
			for i, j := range f.Joints {
				if j.Name == c.endSites {
					head = i
				}
			}
			if head < 0 || len(f.Joints[head].EndSites) != 1 {
				t.Fatalf("%s has no End Site", c.endSites)
			}
		})
	}
}

// TestLocal checks the channels' meaning against rotations written out as
// matrices: Zrotation Xrotation Yrotation by (a, b, c) is Rz(a)·Rx(b)·Ry(c)
// applied to column vectors, and position channels are the joint's whole
// translation (the offset is not added).
func TestLocal(t *testing.T) {
	f, err := Parse([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := f.Local(0, 1)
	if tr != [3]float64{0.5, 1, 0} {
		t.Fatalf("hips at frame 1: %v, want its position channels (0.5 1 0)", tr)
	}
	tr, q := f.Local(1, 0)
	if tr != [3]float64{0, -0.5, 0} {
		t.Fatalf("knee without position channels: %v, want its offset", tr)
	}
	rad := math.Pi / 180
	m := mul(mul(rotZ(10*rad), rotX(20*rad)), rotY(30*rad))
	for _, v := range [][3]float64{{1, 0, 0}, {0, 1, 0}, {0.3, -0.2, 0.9}} {
		got, want := rotate(q, v), apply(m, v)
		for k := range 3 {
			if math.Abs(got[k]-want[k]) > 1e-12 {
				t.Fatalf("v=%v: quaternion gives %v, Rz·Rx·Ry gives %v", v, got, want)
			}
		}
	}
	if _, q := f.Local(0, 1); math.Abs(q[2]-math.Sin(math.Pi/4)) > 1e-12 || math.Abs(q[3]-math.Cos(math.Pi/4)) > 1e-12 {
		t.Fatalf("Zrotation 90: %v", q)
	}
}

type mat [3][3]float64

func rotX(a float64) mat {
	return mat{{1, 0, 0}, {0, math.Cos(a), -math.Sin(a)}, {0, math.Sin(a), math.Cos(a)}}
}
func rotY(a float64) mat {
	return mat{{math.Cos(a), 0, math.Sin(a)}, {0, 1, 0}, {-math.Sin(a), 0, math.Cos(a)}}
}
func rotZ(a float64) mat {
	return mat{{math.Cos(a), -math.Sin(a), 0}, {math.Sin(a), math.Cos(a), 0}, {0, 0, 1}}
}
func mul(a, b mat) (c mat) {
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}
func apply(m mat, v [3]float64) (r [3]float64) {
	for i := range 3 {
		for k := range 3 {
			r[i] += m[i][k] * v[k]
		}
	}
	return r
}

// rotate turns v by the unit quaternion q (x, y, z, w): q·v·q*.
func rotate(q [4]float64, v [3]float64) [3]float64 {
	p := mulQuat(mulQuat(q, [4]float64{v[0], v[1], v[2], 0}), [4]float64{-q[0], -q[1], -q[2], q[3]})
	return [3]float64{p[0], p[1], p[2]}
}

// lineOf is the 1-based line of the first line of s holding sub.
func lineOf(t *testing.T, s, sub string) int {
	t.Helper()
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("%q not in the file", sub)
	}
	return strings.Count(s[:i], "\n") + 1
}

func TestHostile(t *testing.T) {
	deep := func(n int) string {
		var b strings.Builder
		b.WriteString("HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "JOINT j%d\n{\nOFFSET 0 1 0\nCHANNELS 1 Xrotation\n", i)
		}
		b.WriteString(strings.Repeat("}\n", n))
		b.WriteString("MOTION\nFrames: 1\nFrame Time: 0.1\n" + strings.TrimSpace(strings.Repeat("0 ", n)) + "\n")
		return b.String()
	}
	if f, err := Parse([]byte(deep(MaxDepth))); err != nil || len(f.Joints) != MaxDepth {
		t.Fatalf("%d deep: %v", MaxDepth, err)
	}
	for _, c := range []struct {
		name, file, rule, at string // at: text on the line the error names ("" for the end)
	}{
		{"not bvh", "hello\n", formats.RuleMagic, "hello"},
		{"empty", "", formats.RuleTruncated, ""},
		{"cut in the hierarchy", small[:strings.Index(small, "JOINT")], formats.RuleTruncated, ""},
		{"cut in the frames", small[:strings.Index(small, "0.5 1 0 90")], RuleFrameCount, "Frames:"},
		{"a frame missing", strings.Replace(small[:strings.Index(small, "0.5 1 0 90")], "10 20 30", "10.000000000000 20.000000000000 30.000000000000", 1), formats.RuleTruncated, ""},
		{"cut in a frame", small[:len(small)-4], RuleFrameValues, "0.5 1 0 90"},
		{"frames absurd", strings.Replace(small, "Frames: 2", "Frames: 2000000000", 1), RuleFrameCount, "Frames:"},
		{"frames zero", strings.Replace(small, "Frames: 2", "Frames: 0", 1), RuleFrameCount, "Frames:"},
		{"frames negative", strings.Replace(small, "Frames: 2", "Frames: -3", 1), RuleFrameCount, "Frames:"},
		{"frame time zero", strings.Replace(small, "Frame Time: 0.5", "Frame Time: 0", 1), RuleFrameTime, "Frame Time"},
		{"frame time nan", strings.Replace(small, "Frame Time: 0.5", "Frame Time: NaN", 1), RuleFrameTime, "Frame Time"},
		{"too few values", strings.Replace(small, "10 20 30", "10 20", 1), RuleFrameValues, "10 20"},
		{"too many values", strings.Replace(small, "10 20 30", "10 20 30 40", 1), RuleFrameValues, "10 20 30"},
		{"nan value", strings.Replace(small, "10 20 30", "10 nan 30", 1), formats.RuleFloat, "10 nan 30"},
		{"inf value", strings.Replace(small, "10 20 30", "10 -Inf 30", 1), formats.RuleFloat, "10 -Inf 30"},
		{"overflowing value", strings.Replace(small, "10 20 30", "10 1e999 30", 1), formats.RuleFloat, "10 1e999 30"},
		{"word for a value", strings.Replace(small, "10 20 30", "10 twenty 30", 1), RuleNumber, "10 twenty 30"},
		{"nan offset", strings.Replace(small, "OFFSET 0 -0.5 0", "OFFSET 0 nan 0", 1), formats.RuleFloat, "OFFSET 0 nan 0"},
		{"short offset", strings.Replace(small, "OFFSET 0 -0.5 0", "OFFSET 0 -0.5", 1), RuleSyntax, "OFFSET 0 -0.5"},
		{"channel count too big", strings.Replace(small, "CHANNELS 3", "CHANNELS 7", 1), RuleChannels, "CHANNELS 7"},
		{"channel count disagrees", strings.Replace(small, "CHANNELS 3", "CHANNELS 2", 1), RuleChannels, "CHANNELS 2"},
		{"unknown channel", strings.Replace(small, "CHANNELS 3 Zrotation", "CHANNELS 3 Wrotation", 1), RuleChannels, "Wrotation"},
		{"channel twice", strings.Replace(small, "Zrotation Xrotation Yrotation\n\t\tEnd", "Zrotation Zrotation Yrotation\n\t\tEnd", 1), RuleChannels, "Zrotation Zrotation"},
		{"no channels", strings.Replace(strings.Replace(small, "CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 0", 1), "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation", "CHANNELS 0", 1), RuleChannels, "MOTION"},
		{"same name twice", strings.Replace(small, "JOINT knee", "JOINT hips", 1), RuleName, "JOINT hips"},
		{"no name", strings.Replace(small, "JOINT knee", "JOINT", 1), RuleName, "JOINT"},
		{"missing brace", strings.Replace(small, "JOINT knee\n\t{", "JOINT knee", 1), RuleSyntax, "OFFSET 0 -0.5 0"},
		{"stray keyword", strings.Replace(small, "End Site", "Bone Site", 1), RuleSyntax, "Bone Site"},
		{"text after frames", small + "junk\n", formats.RuleTrailingBytes, "junk"},
		{"too deep", deep(MaxDepth + 1), RuleDepth, fmt.Sprintf("JOINT j%d\n", MaxDepth)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), formats.Name("x.bvh"))
			var fe *formats.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *formats.FormatError", err)
			}
			if fe.Rule != c.rule || fe.File != "x.bvh" {
				t.Fatalf("rule %q file %q (%v); want %q", fe.Rule, fe.File, err, c.rule)
			}
			want := strings.Count(c.file, "\n") + 1
			if c.at != "" {
				want = lineOf(t, c.file, c.at)
			}
			if fe.Line != want || !strings.Contains(err.Error(), fmt.Sprintf("line %d", want)) {
				t.Fatalf("line %d (%v); want line %d", fe.Line, err, want)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(c.file)) {
				t.Fatalf("offset %d outside the file", fe.Offset)
			}
		})
	}
}

// TestAbsurdFramesAllocateNothing: a header claiming two billion frames is
// refused before the frames' slice is made.
func TestAbsurdFramesAllocateNothing(t *testing.T) {
	b := []byte(strings.Replace(small, "Frames: 2", "Frames: 2000000000", 1))
	n := testfiles.Allocated(func() { Parse(b) })
	if n > 64<<10 {
		t.Fatalf("allocated %d bytes for a %d-byte file", n, len(b))
	}
}

// TestEveryCut parses every prefix of the small file cut at a line's end:
// each is refused with a rule, none panics.
func TestEveryCut(t *testing.T) {
	for i := range len(small) - 1 {
		if small[i] != '\n' {
			continue
		}
		if _, err := Parse([]byte(small[:i+1])); err == nil {
			t.Fatalf("the file cut after %d bytes parses", i+1)
		}
	}
}

func TestOpenNotRegular(t *testing.T) {
	formattest.NotRegular(t, func(path string) error { _, err := Open(path); return err })
}

// FuzzParse: any bytes give a file or an error; a file holds one value per
// channel and frame, no more values than its bytes can spell, and joints whose
// parents come first.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"a_biped_walk.bvh", "soldier_walk.bvh"} {
		if p, ok := testfiles.Find("bvh", name); ok {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(small))
	f.Fuzz(func(t *testing.T, b []byte) {
		bf, err := Parse(b)
		if err != nil {
			return
		}
		if len(bf.Motion) != bf.Frames*bf.Channels || 2*len(bf.Motion) > len(b)+1 {
			t.Fatalf("%d values for %d frames of %d channels from %d bytes", len(bf.Motion), bf.Frames, bf.Channels, len(b))
		}
		for i, j := range bf.Joints {
			if j.Parent >= i {
				t.Fatalf("joint %d's parent %d", i, j.Parent)
			}
			// Joints without channels are still: their frames are their rest.
			for fr := range min(bf.Frames, len(j.Channels)*bf.Frames, 64) {
				tr, q := bf.Local(i, fr)
				for _, v := range append(tr[:], q[:]...) {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("joint %d frame %d: %v %v", i, fr, tr, q)
					}
				}
			}
		}
	})
}

// TestLineEnds: CRLF line ends, a byte-order mark, spaces for tabs and a "{"
// at the end of its JOINT line read as the plain file does.
func TestLineEnds(t *testing.T) {
	want, err := Parse([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	other := "\ufeff" + strings.ReplaceAll(strings.ReplaceAll(strings.Replace(small, "JOINT knee\n\t{", "JOINT knee {", 1), "\t", "  "), "\n", "\r\n")
	got, err := Parse([]byte(other))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
