package bpx

import (
	"reflect"
	"testing"
)

func testModel() *Model {
	return &Model{
		MaterialHash: 7,
		Vertices:     []Vertex{{Position: [3]float32{1, 2, 3}, Normal: [3]float32{0, 1, 0}, UV: [2]float32{.5, .25}, Joints: [4]uint8{0, 1}, Weights: [4]uint8{200, 55}}},
		Indices:      []uint32{0, 0, 0},
		Bones:        []Bone{{Name: "root", Tail: [3]float32{0, 1, 0}}, {Name: "tip", Head: [3]float32{0, 1, 0}, Tail: [3]float32{0, 2, 0}}},
		Frames:       [][]Transform{{{Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}, Bone: 1}}, {}},
		Animations:   []Animation{{Name: "idle", FirstFrame: 0, FrameCount: 2, FPS: 30, Loops: true}},
	}
}

func TestModelRoundTrip(t *testing.T) {
	// docs/formats/bpx.md §11 gives the vertex format's hash.
	if h := DJB2(SkinnedV1); h != 0x364628F37E093F3D {
		t.Errorf("DJB2(%s) = 0x%016X", SkinnedV1, h)
	}
	m := testModel()
	b, err := EncodeModel(m, XZ)
	if err != nil {
		t.Fatal(err)
	}
	f := openBytes(t, b)
	// The VertexArray names the IndexArray 1-based (§11): section 2 → 3.
	v, _ := f.ReadSection(1)
	if f.Sections[1].Type != SectionVertices || le.Uint32(v[12:]) != 3 || f.Sections[2].Type != SectionIndices {
		t.Fatalf("VertexArray link %d", le.Uint32(v[12:]))
	}
	back, err := ReadModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, m)
	}
	// A frame count past the section's end is refused, not allocated.
	fr, _ := f.ReadSection(4)
	le.PutUint32(fr, 1<<30)
	bad, _ := Encode(TypeModel, f.Header.TypeExt, []SectionBytes{{Type: SectionBones, Data: []byte{0, 0}}, {Type: SectionFrames, Data: fr}})
	_, err = ReadModel(openBytes(t, bad))
	wantRule(t, err, RuleCount)
}

func TestTextureRoundTrip(t *testing.T) {
	px := make([]byte, 5*3*3)
	for i := range px {
		px[i] = byte(i + 1)
	}
	b, err := EncodeTexture(&Texture{Width: 5, Height: 3, Format: RGB8, What: "test", Pixels: px}, NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	f := openBytes(t, b)
	// 5×3 pads to 8×4: k = 2 (width) and 1 (height).
	if f.Header.TypeExt[2] != 2|1<<4 || f.Sections[0].Size != 8*4*3 {
		t.Fatalf("TypeExt % x, pixels %d bytes", f.Header.TypeExt[:5], f.Sections[0].Size)
	}
	raw, _ := f.ReadSection(0)
	if raw[5*3] != 0 || raw[8*3] != px[5*3] { // padding after row 0, row 1 at 8 px
		t.Errorf("padding: % x", raw[:30])
	}
	tex, err := ReadTexture(f)
	if err != nil || tex.Width != 5 || tex.Height != 3 || !reflect.DeepEqual(tex.Pixels, px) || tex.What != "test" {
		t.Fatalf("%+v %v", tex, err)
	}
}
