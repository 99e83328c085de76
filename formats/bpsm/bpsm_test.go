package bpsm

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/internal/binfmt"
	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// testVertex is vertex i of global frame k: every field differs between vertices
// and frames, and the weights sum to exactly 1.
func testVertex(k, i int) Vertex {
	x := float32(k*100 + i)
	return Vertex{
		Position: [3]float32{x, x + 0.25, -x},
		Normal:   [3]float32{0, float32(i%2) * 0.6, 0.8},
		UV:       [2]float32{float32(i) / 8, float32(k) / 16},
		Joints:   [4]uint8{uint8(i), uint8(k), uint8(i + k), 255},
		Weights:  [4]float32{0.5, 0.25, 0.125, 0.125},
		Role:     uint8(i % 7),
	}
}

// testContents builds a mesh of vertices vertices with one clip per entry of frames;
// the names repeat after four clips, so a fifth clip shares the first one's name.
func testContents(vertices int, indices []uint32, frames []int) *Contents {
	c := &Contents{SpeciesID: 1, LOD: LODMinimal, VertexCount: vertices, Indices: indices}
	k := 0
	for ci, n := range frames {
		c.Clips = append(c.Clips, Clip{Name: []string{"idle", "walk", "run", "die"}[ci%4]})
		var vs []Vertex
		for f := 0; f < n; f++ {
			for i := 0; i < vertices; i++ {
				vs = append(vs, testVertex(k, i))
			}
			k++
		}
		c.Frames = append(c.Frames, vs)
	}
	return c
}

func write(t testing.TB, c *Contents) []byte { return formattest.Bytes(t, Write, c) }

func sameVertex(a, b Vertex) bool {
	bitsEq := func(x, y []float32) bool {
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	}
	return bitsEq(a.Position[:], b.Position[:]) && bitsEq(a.Normal[:], b.Normal[:]) && bitsEq(a.UV[:], b.UV[:]) &&
		a.Joints == b.Joints && bitsEq(a.Weights[:], b.Weights[:]) && a.Role == b.Role
}

// checkRoundTrip compares every field of f with the contents it was written from.
func checkRoundTrip(t *testing.T, f *File, c *Contents) {
	t.Helper()
	h := f.Header()
	total := 0
	for _, vs := range c.Frames {
		total += len(vs) / c.VertexCount
	}
	if h.Version != 1 || h.SpeciesID != c.SpeciesID || h.LOD != c.LOD || int(h.VertexCount) != c.VertexCount ||
		int(h.IndexCount) != len(c.Indices) || int(h.ClipCount) != len(c.Clips) || int(h.FrameTotal) != total {
		t.Fatalf("header %+v", h)
	}
	if h.IndexDataOffset%DataAlign != 0 || h.VertexDataOffset%DataAlign != 0 {
		t.Errorf("data not 16-aligned: indices at %d, vertices at %d", h.IndexDataOffset, h.VertexDataOffset)
	}
	if got := f.Indices(); len(got) != len(c.Indices) || (len(got) > 0 && !slices.Equal(got, c.Indices)) {
		t.Errorf("indices %v, want %v", got, c.Indices)
	}
	offset := 0
	for ci, want := range c.Clips {
		got := f.Clips()[ci]
		n := len(c.Frames[ci]) / c.VertexCount
		if got.Name != want.Name || got.FrameCount != n || got.FrameOffset != offset {
			t.Errorf("clip %d: got %+v, want %q with %d frames at %d", ci, got, want.Name, n, offset)
		}
		for fr := 0; fr < n; fr++ {
			raw := f.FrameBytes(ci, fr)
			if len(raw) != c.VertexCount*VertexSize {
				t.Fatalf("clip %d frame %d: FrameBytes is %d bytes", ci, fr, len(raw))
			}
			for i := 0; i < c.VertexCount; i++ {
				w := c.Frames[ci][fr*c.VertexCount+i]
				if v := f.Vertex(ci, fr, i); !sameVertex(v, w) {
					t.Fatalf("clip %d frame %d vertex %d: got %+v, want %+v", ci, fr, i, v, w)
				}
				var to Vertex
				if f.VertexTo(&to, ci, fr, i); !sameVertex(to, w) {
					t.Fatalf("clip %d frame %d vertex %d from VertexTo: got %+v", ci, fr, i, to)
				}
				if v := DecodeVertex(raw[i*VertexSize:]); !sameVertex(v, w) {
					t.Fatalf("clip %d frame %d vertex %d from FrameBytes: got %+v", ci, fr, i, v)
				}
			}
		}
		offset += n
	}
	if err := f.CheckVertices(); err != nil {
		t.Error(err)
	}
}

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name     string
		vertices int
		indices  []uint32
		frames   []int
	}{
		{"one clip one frame", 3, []uint32{0, 1, 2}, []int{1}},
		{"five clips, a repeated name", 4, []uint32{0, 1, 2, 2, 3, 0}, []int{4, 1, 7, 2, 3}},
		{"no indices", 6, nil, []int{2, 2}},
		{"indices end on a 16-byte boundary", 5, []uint32{0, 1, 2, 1, 2, 3, 2, 3, 4, 0, 2, 4}, []int{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testContents(tc.vertices, tc.indices, tc.frames)
			b := write(t, c)
			f, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, f, c)
			if n, err := c.Size(); err != nil || n != int64(len(b)) || n != f.Size() {
				t.Errorf("Size %d (%v); Write wrote %d bytes, the reader's file is %d", n, err, len(b), f.Size())
			}
			if len(tc.frames) == 5 {
				// The fifth clip repeats the first one's name: stored once, first wins.
				if f.Clips()[4].Name != "idle" || f.ClipIndex("idle") != 0 || f.ClipIndex("walk") != 1 || f.ClipIndex("nope") != -1 {
					t.Errorf("ClipIndex: idle %d walk %d", f.ClipIndex("idle"), f.ClipIndex("walk"))
				}
				if h := f.Header(); h.StringTableSize != uint32(len("idle\x00walk\x00run\x00die\x00")) {
					t.Errorf("string table %d bytes: names not interned", h.StringTableSize)
				}
			}
		})
	}
}

// TestDecodingPath runs the reader as it runs on a big-endian host (explicit
// decoding, no zero-copy index view) and on bytes that are not 4-byte aligned in
// memory, and checks both against the contents.
func TestDecodingPath(t *testing.T) {
	c := testContents(4, []uint32{0, 1, 2, 2, 3, 0}, []int{3, 2})
	b := write(t, c)
	unaligned := make([]byte, len(b)+1)[1:]
	copy(unaligned, b)
	f, err := Parse(unaligned)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, f, c)

	binfmt.LittleEndianHost = false
	defer func() { binfmt.LittleEndianHost = true }()
	if f, err = Parse(b); err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, f, c)
}

func TestWriterRejectsBadContents(t *testing.T) {
	nan := float32(math.NaN())
	bad := []struct {
		name   string
		mutate func(c *Contents)
	}{
		{"lod 2", func(c *Contents) { c.LOD = 2 }},
		{"no vertices", func(c *Contents) { c.VertexCount = 0 }},
		{"index count not a multiple of 3", func(c *Contents) { c.Indices = c.Indices[:4] }},
		{"index out of range", func(c *Contents) { c.Indices[2] = 3 }},
		{"no clips", func(c *Contents) { c.Clips, c.Frames = nil, nil }},
		{"clips without frames", func(c *Contents) { c.Frames = c.Frames[:1] }},
		{"empty clip", func(c *Contents) { c.Frames[1] = nil }},
		{"partial frame", func(c *Contents) { c.Frames[0] = c.Frames[0][:4] }},
		{"NaN position", func(c *Contents) { c.Frames[1][2].Position[1] = nan }},
		{"Inf normal", func(c *Contents) { c.Frames[0][0].Normal[2] = float32(math.Inf(-1)) }},
		{"NaN uv", func(c *Contents) { c.Frames[0][1].UV[0] = nan }},
		{"negative weight", func(c *Contents) { c.Frames[0][1].Weights = [4]float32{1.25, -0.25, 0, 0} }},
		{"weights sum to 0.5", func(c *Contents) { c.Frames[0][1].Weights = [4]float32{0.5, 0, 0, 0} }},
		{"NUL in name", func(c *Contents) { c.Clips[0].Name = "a\x00b" }},
		{"name not UTF-8", func(c *Contents) { c.Clips[1].Name = "\xff" }},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			c := testContents(3, []uint32{0, 1, 2, 2, 1, 0}, []int{2, 3})
			tc.mutate(c)
			var buf bytes.Buffer
			if err := Write(&buf, c); err == nil {
				t.Fatal("bad contents written")
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written before the error", buf.Len())
			}
		})
	}
	// All-zero weights (a vertex without skin data) are fine.
	c := testContents(3, []uint32{0, 1, 2}, []int{1})
	c.Frames[0][0].Weights = [4]float32{}
	f, err := Parse(write(t, c))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckVertices(); err != nil {
		t.Fatal(err)
	}
}

// le builds a byte image by absolute offsets, independently of the writer.
type le = formattest.LE

// TestPinned checks every byte of a small file whose layout was worked out by hand
// from docs/formats/bpsm.md and the package's alignment choice: header 0-71, clip table 72-135
// (two 32-byte entries), strings "walk\0die\0" 136-144, zero pad 145-159, three
// indices 160-171, zero pad 172-175, vertex data 176-679 (3 frames × 3 vertices ×
// 56 bytes), end of file at 680.
func TestPinned(t *testing.T) {
	// Vertex i of global frame k: position (k, i, 0.5), normal (0,0,1),
	// uv (i/4, 0.5), joints (i, 1, 0, 0), weights (0.75, 0.25, 0, 0), role 2.
	vertex := func(k, i int) Vertex {
		return Vertex{Position: [3]float32{float32(k), float32(i), 0.5}, Normal: [3]float32{0, 0, 1},
			UV: [2]float32{float32(i) / 4, 0.5}, Joints: [4]uint8{uint8(i), 1, 0, 0},
			Weights: [4]float32{0.75, 0.25, 0, 0}, Role: 2}
	}
	c := &Contents{SpeciesID: 2, LOD: LODMinimal, VertexCount: 3, Indices: []uint32{2, 0, 1},
		Clips:  []Clip{{Name: "walk"}, {Name: "die"}},
		Frames: [][]Vertex{{vertex(0, 0), vertex(0, 1), vertex(0, 2), vertex(1, 0), vertex(1, 1), vertex(1, 2)}, {vertex(2, 0), vertex(2, 1), vertex(2, 2)}},
	}
	got := write(t, c)

	want := make(le, 680)
	copy(want, "BPSM")
	want.U32(4, 1)    // version
	want.U32(8, 2)    // species: elephant
	want.U32(12, 1)   // lod: minimal
	want.U32(16, 3)   // vertex_count
	want.U32(20, 3)   // index_count
	want.U32(24, 2)   // clip_count
	want.U32(28, 3)   // frame_total
	want.U32(32, 9)   // string_table_size: "walk\0die\0"
	want.U64(40, 72)  // clip table
	want.U64(48, 136) // string table
	want.U64(56, 160) // index data: 145 rounded up to 16
	want.U64(64, 176) // vertex data: 172 rounded up to 16
	// clip 0 "walk": name 0, length 4, 2 frames from frame 0
	want.U32(72+4, 4)
	want.U32(72+8, 2)
	// clip 1 "die": name 5, length 3, 1 frame from frame 2
	want.U32(104+0, 5)
	want.U32(104+4, 3)
	want.U32(104+8, 1)
	want.U32(104+12, 2)
	copy(want[136:], "walk\x00die\x00")
	want.U32(160, 2)
	want.U32(164, 0)
	want.U32(168, 1)
	for k := 0; k < 3; k++ {
		for i := 0; i < 3; i++ {
			o := 176 + (k*3+i)*56
			want.F32(o+0, float32(k))
			want.F32(o+4, float32(i))
			want.F32(o+8, 0.5)
			want.F32(o+20, 1) // normal z
			want.F32(o+24, float32(i)/4)
			want.F32(o+28, 0.5)
			want[o+32], want[o+33] = byte(i), 1
			want.F32(o+36, 0.75)
			want.F32(o+40, 0.25)
			want[o+52] = 2
		}
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if i < len(want) && got[i] != want[i] {
				t.Fatalf("bytes differ first at offset %d: got %#x want %#x (len %d vs %d)", i, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("length %d, want %d", len(got), len(want))
	}
	f, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if v := f.Vertex(1, 0, 2); !sameVertex(v, vertex(2, 2)) {
		t.Fatalf("Vertex(1,0,2) = %+v", v)
	}
	var wantSections []Section
	for _, s := range []struct {
		name         string
		offset, size uint64
	}{{"header", 0, 72}, {"clip table", 72, 64}, {"string table", 136, 9}, {"padding", 145, 15},
		{"index data", 160, 12}, {"padding", 172, 4}, {"vertex data", 176, 504}} {
		wantSections = append(wantSections, Section{Name: s.name, Offset: s.offset, Size: s.size})
	}
	if s := f.Sections(); len(s) != len(wantSections) {
		t.Fatalf("sections %+v", s)
	} else {
		for i := range s {
			if s[i] != wantSections[i] {
				t.Errorf("section %d = %+v, want %+v", i, s[i], wantSections[i])
			}
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "horse_minimal.bpsm")
	c := testContents(3, []uint32{0, 1, 2}, []int{2, 1})
	if err := WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	c.Frames[1][0].Position[0] = float32(math.NaN()) // invalid: the write must fail
	if err := WriteFile(path, c); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("invalid contents: err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("failed write changed the file")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c.Frames[1][0].Position[0] = 200 // what testVertex(2, 0) holds
	checkRoundTrip(t, f, c)
	if f.Name() != path || f.Size() != int64(len(before)) {
		t.Errorf("Name %q Size %d", f.Name(), f.Size())
	}
}

// failingWriter fails after n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteReportsWriterErrors(t *testing.T) {
	c := testContents(100, nil, []int{20, 20}) // 224 KiB of vertices
	for _, n := range []int{0, 100, 70000, 200000} {
		if err := Write(&failingWriter{n}, c); err == nil {
			t.Errorf("failure after %d bytes not reported", n)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	formattest.OpenErrors(t, Open)
	var ve *ValidationError
	bad := filepath.Join(t.TempDir(), "bad.bpsm")
	b := write(t, testContents(3, []uint32{0, 1, 2}, []int{1}))
	b[12] = 5 // lod
	os.WriteFile(bad, b, 0o644)
	if _, err := Open(bad); !errors.As(err, &ve) || !ve.HasRule(RuleLOD) || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad lod: %v", err)
	}
}

func TestPanicsOutOfRange(t *testing.T) {
	f, err := Parse(write(t, testContents(3, []uint32{0, 1, 2}, []int{2})))
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []func(){
		func() { f.Vertex(0, 2, 0) },
		func() { f.Vertex(0, 0, 3) },
		func() { f.Vertex(0, -1, 0) },
		func() { f.Vertex(1, 0, 0) },
		func() { f.VertexTo(&Vertex{}, 0, 0, -1) },
		func() { f.FrameBytes(0, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("out-of-range access did not panic")
				}
			}()
			call()
		}()
	}
}
