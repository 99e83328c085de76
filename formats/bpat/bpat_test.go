package bpat

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// testContents builds a file with the given shape; palette float k of the whole
// block is float32(k)/8 + bone-specific noise so every float differs.
func testContents(version uint32, bones int, frames []int, markers bool, sockets []Socket) *Contents {
	c := &Contents{Version: version, SpeciesID: 1, BoneCount: bones, Sockets: sockets}
	k := 0
	for i, n := range frames {
		cl := Clip{Name: []string{"idle", "walk", "attack", "die", "idle"}[i%5], FPS: 24 + float32(i), Loops: i%2 == 0, Markers: NoMarkers()}
		if markers && i == 1 {
			cl.Markers = Markers{0.1, 0.54, 0.58, 0.72, 0.9}
		}
		p := make([]float32, n*bones*16)
		for j := range p {
			p[j] = float32(k)/8 - 3
			k++
		}
		c.Clips = append(c.Clips, cl)
		c.Palettes = append(c.Palettes, p)
	}
	return c
}

func write(t testing.TB, c *Contents) []byte { return formattest.Bytes(t, Write, c) }

func TestRoundTrip(t *testing.T) {
	sockets := []Socket{{"hand_r", 1, [3]float32{0, 0.1, 0}}, {"head", 0, [3]float32{0.5, -1, 2}}}
	cases := []struct {
		name        string
		version     uint32
		markers     bool
		sockets     []Socket
		wantVersion uint32
	}{
		{"v1", 0, false, nil, 1},
		{"v1 sockets", 0, false, sockets, 1},
		{"v2", 0, true, nil, 2},
		{"v2 sockets", 0, true, sockets, 2},
		{"v2 asked without markers", 2, false, sockets, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testContents(tc.version, 3, []int{4, 1, 7, 2, 3}, tc.markers, tc.sockets)
			b := write(t, c)
			f, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			h := f.Header()
			if h.Version != tc.wantVersion || h.SpeciesID != 1 || h.BoneCount != 3 || h.ClipCount != 5 || h.FrameTotal != 17 || int(h.SocketCount) != len(tc.sockets) {
				t.Fatalf("header %+v", h)
			}
			offset := 0
			for i, want := range c.Clips {
				got := f.Clips()[i]
				n := len(c.Palettes[i]) / 48
				if got.Name != want.Name || got.FPS != want.FPS || got.Loops != want.Loops || got.Markers != want.Markers || got.FrameCount != n || got.FrameOffset != offset {
					t.Errorf("clip %d: got %+v, want %+v with %d frames at %d", i, got, want, n, offset)
				}
				for fr := 0; fr < n; fr++ {
					if !equalFloats(f.Palette(i, fr), c.Palettes[i][fr*48:(fr+1)*48]) {
						t.Errorf("clip %d frame %d palette differs", i, fr)
					}
					if len(tc.sockets) > 0 {
						want := make([]float32, len(tc.sockets)*12)
						ComputeSocketData(c.Palettes[i][fr*48:(fr+1)*48], tc.sockets, want)
						if !equalFloats(f.SocketData(i, fr), want) {
							t.Errorf("clip %d frame %d socket data differs", i, fr)
						}
					}
				}
				offset += n
			}
			if len(tc.sockets) > 0 {
				for i, s := range tc.sockets {
					if f.Sockets()[i] != s {
						t.Errorf("socket %d = %+v, want %+v", i, f.Sockets()[i], s)
					}
				}
			}
			// Duplicate names: the first wins.
			if f.ClipIndex("idle") != 0 || f.ClipIndex("walk") != 1 || f.ClipIndex("attack") != 2 || f.ClipIndex("nope") != -1 {
				t.Errorf("ClipIndex wrong: idle %d walk %d attack %d", f.ClipIndex("idle"), f.ClipIndex("walk"), f.ClipIndex("attack"))
			}
			if got := len(f.PaletteBytes()); got != 17*3*64 {
				t.Errorf("PaletteBytes is %d bytes", got)
			}
		})
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestVersionOneRefusesMarkers(t *testing.T) {
	c := testContents(1, 2, []int{1, 1}, true, nil)
	if err := Write(&bytes.Buffer{}, c); err == nil {
		t.Fatal("v1 with markers was written")
	}
}

func TestWriterRejectsBadContents(t *testing.T) {
	bad := []func(c *Contents){
		func(c *Contents) { c.BoneCount = 0 },
		func(c *Contents) { c.BoneCount = 65 },
		func(c *Contents) { c.Clips, c.Palettes = nil, nil },
		func(c *Contents) { c.Palettes[0] = c.Palettes[0][:5] },
		func(c *Contents) { c.Clips[0].FPS = 0 },
		func(c *Contents) { c.Clips[0].FPS = float32(math.NaN()) },
		func(c *Contents) { c.Clips[1].Markers[2] = 1.5 },
		func(c *Contents) { c.Clips[0].Name = "a\x00b" },
		func(c *Contents) { c.Clips[0].Name = "a\xffb" },
		func(c *Contents) { c.Sockets = []Socket{{"s", 2, [3]float32{}}} },
		func(c *Contents) { c.Version = 3 },
		func(c *Contents) { c.Sockets = []Socket{{"s", 1, [3]float32{0, float32(math.Inf(1)), 0}}} },
		func(c *Contents) { // finite, but the socket transform overflows to +Inf
			c.Sockets = []Socket{{"s", 1, [3]float32{3e38, 0, 0}}}
			c.Palettes[0][16] = 3
		},
	}
	for i, mutate := range bad {
		c := testContents(0, 2, []int{2, 3}, true, nil)
		mutate(c)
		if err := Write(&bytes.Buffer{}, c); err == nil {
			t.Errorf("case %d: bad contents written", i)
		}
	}
}

// le builds a byte image by absolute offsets, independently of the writer.
type le = formattest.LE

// TestPinnedV1 checks every byte of a one-bone, one-clip v1 file whose layout was
// worked out by hand from docs/formats/bpat.md §3: header 0-63, clip table 64-95, strings
// "a\0" at 96-97, zero pad 98-111, palette 112-175.
func TestPinnedV1(t *testing.T) {
	identity := []float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	got := write(t, &Contents{SpeciesID: 0, BoneCount: 1,
		Clips:    []Clip{{Name: "a", FPS: 30, Loops: true, Markers: NoMarkers()}},
		Palettes: [][]float32{identity}})
	want := make(le, 176)
	copy(want, "BPAT")
	want.U32(4, 1)   // version
	want.U32(12, 1)  // bones
	want.U32(20, 1)  // clips
	want.U32(24, 1)  // frame_total
	want.U32(28, 2)  // "a\0"
	want.U64(32, 64) // clip table
	want.U64(48, 96) // string table
	want.U64(56, 112)
	want.U32(64+4, 1) // name length
	want.U32(64+8, 1) // frames
	want.F32(64+16, 30)
	want[64+20] = 1
	want[96] = 'a'
	for r := 0; r < 4; r++ {
		want.F32(112+4*(r*4+r), 1)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("v1 bytes differ\n got %x\nwant %x", got, []byte(want))
	}
}

// TestPinnedV2 checks a two-bone v2 file with two clips and one socket whose name
// repeats a clip name (stored once). By hand: clip table 64-151 (2×44), socket
// table 152-183, strings "walk\0hit\0" 184-192, pad to 208, palette 3 frames ×
// 2 bones × 64 = 384 bytes at 208-591, socket data 3 × 48 bytes at 592-735.
func TestPinnedV2(t *testing.T) {
	palette := make([]float32, 3*2*16)
	for f := 0; f < 3; f++ {
		for b := 0; b < 2; b++ {
			m := palette[(f*2+b)*16:]
			m[0], m[5], m[10], m[15] = 1, 1, 1, 1
			m[3], m[7], m[11] = float32(f), float32(b), 2 // translation (f, b, 2)
		}
	}
	c := &Contents{SpeciesID: 2, BoneCount: 2,
		Clips: []Clip{
			{Name: "walk", FPS: 24, Loops: true, Markers: NoMarkers()},
			{Name: "hit", FPS: 12, Markers: Markers{-1, -1, 0.5, -1, 1}},
		},
		Palettes: [][]float32{palette[:64], palette[64:]},
		Sockets:  []Socket{{Name: "hit", Anchor: 1, Offset: [3]float32{0, 0, 1}}},
	}
	got := write(t, c)
	want := make(le, 736)
	copy(want, "BPAT")
	want.U32(4, 2)
	want.U32(8, 2)
	want.U32(12, 2)
	want.U32(16, 1)
	want.U32(20, 2)
	want.U32(24, 3)
	want.U32(28, 9)
	want.U64(32, 64)
	want.U64(40, 152)
	want.U64(48, 184)
	want.U64(56, 208)
	// clip 0 "walk": name 0, len 4, 2 frames at 0, 24 fps, loops, markers unset
	want.U32(64+4, 4)
	want.U32(64+8, 2)
	want.F32(64+16, 24)
	want[64+20] = 1
	for k := 0; k < 5; k++ {
		want.F32(64+24+4*k, -1)
	}
	// clip 1 "hit": name 5, len 3, 1 frame at 2, 12 fps, one-shot
	want.U32(108+0, 5)
	want.U32(108+4, 3)
	want.U32(108+8, 1)
	want.U32(108+12, 2)
	want.F32(108+16, 12)
	for k, m := range []float32{-1, -1, 0.5, -1, 1} {
		want.F32(108+24+4*k, m)
	}
	// socket "hit" reuses the clip's string at 5, anchor 1, offset (0,0,1)
	want.U32(152+0, 5)
	want.U32(152+4, 3)
	want.U32(152+8, 1)
	want.F32(152+20, 1)
	copy(want[184:], "walk\x00hit\x00")
	for i, v := range palette {
		want.F32(208+4*i, v)
	}
	// socket data: bone 1 of each frame (translation (f,1,2)) moved by (0,0,1): rows
	// [1 0 0 f] [0 1 0 1] [0 0 1 3]
	for f := 0; f < 3; f++ {
		o := 592 + 48*f
		want.F32(o+0, 1)
		want.F32(o+12, float32(f))
		want.F32(o+20, 1)
		want.F32(o+28, 1)
		want.F32(o+40, 1)
		want.F32(o+44, 3)
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if i < len(want) && got[i] != want[i] {
				t.Fatalf("v2 bytes differ first at offset %d: got %#x want %#x (len %d vs %d)", i, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("v2 length %d, want %d", len(got), len(want))
	}
	if _, err := Parse(got); err != nil {
		t.Fatal(err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.bpat")
	c := testContents(0, 2, []int{3}, false, nil)
	if err := WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	c.BoneCount = 0 // invalid: the write must fail and keep the old file
	if err := WriteFile(path, c); err == nil {
		t.Fatal("invalid contents written")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("failed write changed the file")
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Palette(0, 2)[0] != c.Palettes[0][2*32] {
		t.Fatal("opened file has wrong palette")
	}
}

func TestOpenErrors(t *testing.T) { formattest.OpenErrors(t, Open) }

// TestStreamWriter writes the palette block in uneven pieces, with the clips'
// frame counts given instead of palettes: the bytes equal Write's.
func TestStreamWriter(t *testing.T) {
	c := testContents(0, 2, []int{3, 5, 1}, true, []Socket{{"s", 1, [3]float32{0, 1, 0}}})
	want := write(t, c)
	var all []float32
	for _, p := range c.Palettes {
		all = append(all, p...)
	}
	streamed := *c
	streamed.Palettes = nil
	streamed.Clips = append([]Clip(nil), c.Clips...)
	for i := range streamed.Clips {
		streamed.Clips[i].FrameCount = len(c.Palettes[i]) / 32
	}
	var buf bytes.Buffer
	sw, err := NewStreamWriter(&buf, &streamed)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 0, 4, 3} { // frames per piece: 9 in all
		if err := sw.WriteFrames(all[:n*32]); err != nil {
			t.Fatal(err)
		}
		all = all[n*32:]
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("streamed bytes differ from Write's")
	}

	// Too few and too many frames, and a partial frame, are errors.
	sw, _ = NewStreamWriter(io.Discard, &streamed)
	sw.WriteFrames(make([]float32, 8*32))
	if err := sw.Close(); err == nil {
		t.Error("Close accepted 8 of 9 frames")
	}
	sw, _ = NewStreamWriter(io.Discard, &streamed)
	if err := sw.WriteFrames(make([]float32, 10*32)); err == nil {
		t.Error("10 frames accepted for 9")
	}
	if err := sw.WriteFrames(make([]float32, 31)); err == nil {
		t.Error("a partial frame accepted")
	}
}

// Size says how long Write's file is, palettes given or not: v1 and v2, with and
// without sockets, with a name shared by a clip and a socket (stored once).
func TestContentsSize(t *testing.T) {
	frame := make([]float32, 2*16)
	for _, c := range []*Contents{
		{BoneCount: 2, Clips: []Clip{{Name: "a", FPS: 24, Loops: true}}, Palettes: [][]float32{frame}},
		{BoneCount: 2, Clips: []Clip{{Name: "walk", FPS: 24, Markers: Markers{0.5, -1, -1, -1, -1}}, {Name: "run", FPS: 30}},
			Palettes: [][]float32{append(frame, frame...), frame}, Sockets: []Socket{{Name: "walk", Anchor: 1}, {Name: "hand", Anchor: 0}}},
	} {
		var b bytes.Buffer
		if err := Write(&b, c); err != nil {
			t.Fatal(err)
		}
		pal := c.Palettes
		c.Palettes = nil
		for i := range c.Clips {
			c.Clips[i].FrameCount = len(pal[i]) / 32
		}
		if n, err := c.Size(); err != nil || n != int64(b.Len()) {
			t.Errorf("Size %d (%v), Write wrote %d bytes", n, err, b.Len())
		}
	}
}
