package pack

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// PaletteTexture is a BPAT file's palettes as a Float32 texture
// (docs/formats/bpx.md §10): one row per frame (clips in file order), each
// bone's 16 floats of its row-major matrix one after another, so the texture is
// bone_count·16 texels wide and frame_total high.
func PaletteTexture(f *bpat.File) *bpx.Texture {
	h := f.Header()
	w := f.BoneCount() * 16
	t := &bpx.Texture{Width: w, Height: int(h.FrameTotal), Format: bpx.Float32, What: "bpat palette",
		Pixels: make([]byte, 0, 4*w*int(h.FrameTotal))}
	for c, clip := range f.Clips() {
		for fr := range clip.FrameCount {
			for _, v := range f.Palette(c, fr) {
				t.Pixels = binary.LittleEndian.AppendUint32(t.Pixels, math.Float32bits(v))
			}
		}
	}
	return t
}

// CreatureModel is a creature as a BPX model (docs/formats/bpx.md §11): its full
// mesh, its bones (head at the bone's rest position, tail at its first child's,
// or a tenth of a metre along the bone's rest y axis for a leaf), and every
// frame of the baked file f as skinning transforms (palette × inverse bind,
// decomposed), each clip an animation.
func CreatureModel(s *species.Creature, f *bpat.File) (*bpx.Model, error) {
	if f.BoneCount() != len(s.Skeleton.Names) {
		return nil, fmt.Errorf("%s: the file has %d bones, the creature %d", s.Name, f.BoneCount(), len(s.Skeleton.Names))
	}
	m := &bpx.Model{MaterialHash: bpx.DJB2("bonebake/" + s.Name)}
	mesh := s.Mesh
	m.Vertices = make([]bpx.Vertex, mesh.VertexCount())
	for i := range m.Vertices {
		v := &m.Vertices[i]
		v.Position, v.Normal, v.UV = mesh.Positions[i], mesh.Normals[i], mesh.UVs[i]
		for k, j := range mesh.Joints[i] {
			if j > 255 {
				return nil, fmt.Errorf("%s: vertex %d uses joint %d; skinned_v1 joints are bytes", s.Name, i, j)
			}
			v.Joints[k] = uint8(j)
		}
		v.Weights = Unorm8Weights(mesh.Weights[i])
	}
	m.Indices = mesh.Indices
	rest := s.Skeleton.RestModelSpace()
	for i, name := range s.Skeleton.Names {
		head := rest[i].Translation()
		tail := rest[i].TransformPoint(rig.Vec3{0, 0.1, 0})
		for c, p := range s.Skeleton.Parents {
			if p == i {
				tail = rest[c].Translation()
				break
			}
		}
		m.Bones = append(m.Bones, bpx.Bone{Name: name, Head: vec32(head), Tail: vec32(tail)})
	}
	inv := s.InverseBind()
	for c, clip := range f.Clips() {
		m.Animations = append(m.Animations, bpx.Animation{Name: clip.Name, FirstFrame: uint32(len(m.Frames)),
			FrameCount: uint32(clip.FrameCount), FPS: clip.FPS, Loops: clip.Loops})
		for fr := range clip.FrameCount {
			pal := f.Palette(c, fr)
			frame := make([]bpx.Transform, len(inv))
			for b := range inv {
				var p rig.Mat4
				for k := range p {
					p[k] = float64(pal[16*b+k])
				}
				t, _ := rig.Decompose(p.Mul(inv[b]))
				frame[b] = bpx.Transform{
					Rotation: [4]float32{float32(t.Rotation[0]), float32(t.Rotation[1]), float32(t.Rotation[2]), float32(t.Rotation[3])},
					Position: vec32(t.Translation), Scale: vec32(t.Scale), Bone: uint32(b),
				}
			}
			m.Frames = append(m.Frames, frame)
		}
	}
	return m, nil
}

func vec32(v rig.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// Unorm8Weights quantizes skin weights to bytes summing to exactly 255: each
// rounded down, then the units left over go to the largest remainders.
func Unorm8Weights(w [4]float32) [4]uint8 {
	var sum float64
	for _, x := range w {
		sum += math.Max(float64(x), 0)
	}
	var out [4]uint8
	if sum == 0 {
		out[0] = 255
		return out
	}
	var rem [4]float64
	left := 255
	for i, x := range w {
		v := math.Max(float64(x), 0) / sum * 255
		out[i] = uint8(math.Floor(v))
		rem[i] = v - math.Floor(v)
		left -= int(out[i])
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}
