package bpx

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// Model section types (docs/formats/bpx.md §11).
const (
	SectionVertices   = 2
	SectionIndices    = 3
	SectionBones      = 4
	SectionFrames     = 5
	SectionAnimations = 6
)

// SkinnedV1 is bonebake's vertex format path; its DJB2-64 is the TypeExt
// VertexFormatHash of the models bonebake writes.
const SkinnedV1 = "bonebake/skinned_v1"

const (
	vertexSize    = 40
	boneSize      = 28
	transformSize = 44
	animationSize = 20
)

// Vertex is one bonebake/skinned_v1 vertex; Weights sum to 255.
type Vertex struct {
	Position, Normal [3]float32
	UV               [2]float32
	Joints, Weights  [4]uint8
}

// Bone is one BoneArray entry.
type Bone struct {
	Name       string
	Head, Tail [3]float32
}

// Transform is a bone's skinning transform (palette × inverse bind) in one
// frame, decomposed.
type Transform struct {
	Rotation [4]float32 // quaternion x, y, z, w
	Position [3]float32
	Scale    [3]float32
	Bone     uint32
}

// Animation is one AnimationArray entry: a clip as a run of frames.
type Animation struct {
	Name       string
	FirstFrame uint32
	FrameCount uint32
	FPS        float32
	Loops      bool
}

// Model is a type 'M' container's contents.
type Model struct {
	MaterialHash uint64
	Vertices     []Vertex
	Indices      []uint32
	Bones        []Bone
	Frames       [][]Transform
	Animations   []Animation
}

// EncodeModel returns m as the bytes of a type 'M' container of the bonebake/skinned_v1 vertex
// format. Sections, in order: strings, VertexArray, IndexArray, BoneArray,
// FrameArray, AnimationArray; those over 64 KiB are compressed as comp says.
func EncodeModel(m *Model, comp Compression) ([]byte, error) {
	var strs binfmt.Strings
	if len(m.Bones) > math.MaxUint16 {
		return nil, fmt.Errorf("bpx model: %d bones; at most %d", len(m.Bones), math.MaxUint16)
	}
	// The VertexArray names its IndexArray 1-based: table index 2 → 3 (§11).
	const indexSection = 2
	v := make([]byte, 0, 20+vertexSize*len(m.Vertices))
	v = le.AppendUint64(v, m.MaterialHash)
	v = le.AppendUint32(v, uint32(len(m.Vertices)))
	v = le.AppendUint32(v, indexSection+1)
	v = le.AppendUint32(v, 0)
	for _, x := range m.Vertices {
		v = appendF32(v, x.Position[:]...)
		v = appendF32(v, x.Normal[:]...)
		v = appendF32(v, x.UV[:]...)
		v = append(v, x.Joints[:]...)
		v = append(v, x.Weights[:]...)
	}
	ix := le.AppendUint32(make([]byte, 0, 4+4*len(m.Indices)), uint32(len(m.Indices)))
	for _, i := range m.Indices {
		ix = le.AppendUint32(ix, i)
	}
	bones := le.AppendUint16(nil, uint16(len(m.Bones)))
	for _, b := range m.Bones {
		off, err := strs.Add(b.Name)
		if err != nil {
			return nil, fmt.Errorf("bone %q: %w", b.Name, err)
		}
		bones = appendF32(bones, b.Head[:]...)
		bones = appendF32(bones, b.Tail[:]...)
		bones = le.AppendUint32(bones, off)
	}
	fr := le.AppendUint32(nil, uint32(len(m.Frames)))
	for _, f := range m.Frames {
		fr = le.AppendUint32(fr, uint32(len(f)))
		for _, t := range f {
			fr = appendF32(fr, t.Rotation[:]...)
			fr = appendF32(fr, t.Position[:]...)
			fr = appendF32(fr, t.Scale[:]...)
			fr = le.AppendUint32(fr, t.Bone)
		}
	}
	an := le.AppendUint32(nil, uint32(len(m.Animations)))
	for _, a := range m.Animations {
		off, err := strs.Add(a.Name)
		if err != nil {
			return nil, fmt.Errorf("animation %q: %w", a.Name, err)
		}
		an = le.AppendUint32(an, off)
		an = le.AppendUint32(an, a.FirstFrame)
		an = le.AppendUint32(an, a.FrameCount)
		an = appendF32(an, a.FPS)
		loops := uint32(0)
		if a.Loops {
			loops = 1
		}
		an = le.AppendUint32(an, loops)
	}
	var ext [16]byte
	le.PutUint64(ext[:], DJB2(SkinnedV1))
	return Encode(TypeModel, ext, []SectionBytes{
		{Type: SectionStrings, Data: strs.Table, Compression: comp, Check: WeakCheck},
		{Type: SectionVertices, Data: v, Compression: comp, Check: CRC32},
		{Type: SectionIndices, Data: ix, Compression: comp, Check: CRC32},
		{Type: SectionBones, Data: bones, Compression: comp, Check: CRC32},
		{Type: SectionFrames, Data: fr, Compression: comp, Check: CRC32},
		{Type: SectionAnimations, Data: an, Compression: comp, Check: CRC32},
	})
}

func appendF32(b []byte, fs ...float32) []byte {
	for _, f := range fs {
		b = le.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// cursor reads a section's fields, failing with the section and the offset
// when a count runs past its end.
type cursor struct {
	f   *File
	sec int
	b   []byte
	p   int
	err error
}

func (c *cursor) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || len(c.b)-c.p < n {
		c.err = c.f.fail(c.sec, RuleCount, c.f.Sections[c.sec].Pointer, "%s at byte %d runs past the section's %d bytes", what, c.p, len(c.b))
		return nil
	}
	s := c.b[c.p : c.p+n]
	c.p += n
	return s
}

func (c *cursor) u32(what string) uint32 {
	if s := c.take(4, what); s != nil {
		return le.Uint32(s)
	}
	return 0
}

// count reads a u32 count of size-byte entries and checks they fit.
func (c *cursor) count(size int, what string) int {
	n := c.u32(what + " count")
	if c.err == nil && uint64(n)*uint64(size) > uint64(len(c.b)-c.p) {
		c.err = c.f.fail(c.sec, RuleCount, c.f.Sections[c.sec].Pointer, "%d %s of %d bytes run past the section's %d bytes", n, what, size, len(c.b))
		return 0
	}
	return int(n)
}

func f32s(b []byte, out []float32) {
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// ReadModel reads a type 'M' container of the bonebake/skinned_v1 format.
func ReadModel(f *File) (*Model, error) {
	if f.Header.Type != TypeModel {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleType, Offset: 3, Index: -1, Detail: fmt.Sprintf("container type %q is not a model ('M')", f.Header.Type)}
	}
	if h := le.Uint64(f.Header.TypeExt[:]); h != DJB2(SkinnedV1) {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleType, Offset: 24, Index: -1, Detail: fmt.Sprintf("vertex format hash 0x%016X is not %s's", h, SkinnedV1)}
	}
	m := &Model{}
	var names []byte
	byType := map[uint8]int{}
	for i, s := range f.Sections {
		if _, seen := byType[s.Type]; !seen {
			byType[s.Type] = i
		}
	}
	read := func(typ uint8) (*cursor, error) {
		i, ok := byType[typ]
		if !ok {
			return nil, nil
		}
		b, err := f.ReadSection(i)
		return &cursor{f: f, sec: i, b: b}, err
	}
	if i, ok := byType[SectionStrings]; ok {
		var err error
		if names, err = f.ReadSectionMax(i, MaxTableBytes, "bone and animation names; "+liftTable); err != nil {
			return nil, err
		}
	}
	name := func(c *cursor, off uint32) string {
		if c.err != nil {
			return ""
		}
		if int64(off) >= int64(len(names)) {
			c.err = f.fail(c.sec, formats.RuleBounds, f.Sections[c.sec].Pointer, "name offset %d is outside the %d-byte strings section", off, len(names))
			return ""
		}
		s := names[off:]
		for i, b := range s {
			if b == 0 {
				return string(s[:i])
			}
		}
		c.err = f.fail(c.sec, formats.RuleName, f.Sections[c.sec].Pointer, "name at offset %d has no NUL", off)
		return ""
	}
	c, err := read(SectionVertices)
	if err != nil {
		return nil, err
	}
	if c != nil {
		if h := c.take(8, "material hash"); h != nil {
			m.MaterialHash = le.Uint64(h)
		}
		n := c.count(vertexSize, "vertices")
		link := c.u32("IndexArray link")
		c.u32("reserved")
		if c.err == nil && link != 0 && (int(link) > len(f.Sections) || f.Sections[link-1].Type != SectionIndices) {
			return nil, f.fail(c.sec, formats.RuleBounds, f.Sections[c.sec].Pointer+12, "IndexArray link %d (1-based) is not an IndexArray section", link)
		}
		m.Vertices = make([]Vertex, n)
		for i := range m.Vertices {
			b := c.take(vertexSize, "vertex")
			if b == nil {
				break
			}
			x := &m.Vertices[i]
			f32s(b, x.Position[:])
			f32s(b[12:], x.Normal[:])
			f32s(b[24:], x.UV[:])
			copy(x.Joints[:], b[32:36])
			copy(x.Weights[:], b[36:40])
		}
		if c.err != nil {
			return nil, c.err
		}
		if link != 0 {
			byType[SectionIndices] = int(link) - 1
		}
	}
	if c, err = read(SectionIndices); err != nil {
		return nil, err
	} else if c != nil {
		n := c.count(4, "indices")
		m.Indices = make([]uint32, n)
		for i := range m.Indices {
			m.Indices[i] = c.u32("index")
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	if c, err = read(SectionBones); err != nil {
		return nil, err
	} else if c != nil {
		var n int
		if h := c.take(2, "bone count"); h != nil {
			n = int(le.Uint16(h))
		}
		if c.err == nil && n*boneSize > len(c.b)-c.p {
			return nil, f.fail(c.sec, RuleCount, f.Sections[c.sec].Pointer, "%d bones of %d bytes run past the section's %d bytes", n, boneSize, len(c.b))
		}
		m.Bones = make([]Bone, n)
		for i := range m.Bones {
			b := c.take(boneSize, "bone")
			if b == nil {
				break
			}
			f32s(b, m.Bones[i].Head[:])
			f32s(b[12:], m.Bones[i].Tail[:])
			m.Bones[i].Name = name(c, le.Uint32(b[24:]))
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	if c, err = read(SectionFrames); err != nil {
		return nil, err
	} else if c != nil {
		n := c.count(4, "frames")
		m.Frames = make([][]Transform, n)
		for i := range m.Frames {
			k := c.count(transformSize, "transforms")
			ts := make([]Transform, k)
			for j := range ts {
				b := c.take(transformSize, "transform")
				if b == nil {
					break
				}
				f32s(b, ts[j].Rotation[:])
				f32s(b[16:], ts[j].Position[:])
				f32s(b[28:], ts[j].Scale[:])
				ts[j].Bone = le.Uint32(b[40:])
				if int(ts[j].Bone) >= len(m.Bones) {
					return nil, f.fail(c.sec, formats.RuleBounds, f.Sections[c.sec].Pointer, "frame %d transform %d names bone %d of %d", i, j, ts[j].Bone, len(m.Bones))
				}
			}
			m.Frames[i] = ts
			if c.err != nil {
				return nil, c.err
			}
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	if c, err = read(SectionAnimations); err != nil {
		return nil, err
	} else if c != nil {
		n := c.count(animationSize, "animations")
		m.Animations = make([]Animation, n)
		for i := range m.Animations {
			b := c.take(animationSize, "animation")
			if b == nil {
				break
			}
			a := &m.Animations[i]
			a.Name = name(c, le.Uint32(b))
			a.FirstFrame, a.FrameCount = le.Uint32(b[4:]), le.Uint32(b[8:])
			a.FPS = math.Float32frombits(le.Uint32(b[12:]))
			a.Loops = le.Uint32(b[16:])&1 != 0
			if uint64(a.FirstFrame)+uint64(a.FrameCount) > uint64(len(m.Frames)) {
				return nil, f.fail(c.sec, formats.RuleBounds, f.Sections[c.sec].Pointer, "animation %d %q runs from frame %d for %d frames; the model has %d", i, a.Name, a.FirstFrame, a.FrameCount, len(m.Frames))
			}
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	return m, nil
}
