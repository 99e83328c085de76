package gltf

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// Export is a skinned, animated creature to write as glTF 2.0: one node per bone
// (in skeleton order), a skin of the bones Joints names, a skinned mesh node at the
// scene root (glTF ignores its transform: the mesh is placed by the joints), and one
// animation per clip with a LINEAR translation, rotation and scale channel for
// every bone.
type Export struct {
	Name     string
	Skeleton *rig.Skeleton
	// Joints lists the skeleton bones that are the skin's joints, in joint order;
	// nil makes every bone a joint (joint j is bone j).
	Joints      []int
	Mesh        *mesh.Skinned // JOINTS_0 index Joints
	InverseBind []rig.Mat4    // per joint, row-major
	Clips       []ExportAnimation
	Meta        ModelMeta
}

// ExportAnimation is one animation: the local pose of every bone at each key time.
type ExportAnimation struct {
	Name  string
	Times []float32         // seconds, increasing
	Poses [][]rig.Transform // Poses[k][bone] at Times[k]
	Meta  ClipMeta
}

// WriteFile writes e to path, as binary glTF when path ends in .glb and as a
// .gltf with an embedded buffer otherwise. The write is atomic.
func WriteFile(path string, e *Export) error {
	return WriteFileWith(atomicfile.Write, path, e)
}

// WriteFileWith is WriteFile writing path with write: an atomicfile.Set's
// Write, for a model that is one of a set of files.
func WriteFileWith(write atomicfile.WriteFunc, path string, e *Export) error {
	doc, err := e.document()
	if err != nil {
		return fmt.Errorf("gltf: %s: %w", path, err)
	}
	binary := strings.EqualFold(filepath.Ext(path), ".glb")
	if !binary {
		doc.Buffers[0].EmbeddedResource()
	}
	return write(path, func(w io.Writer) error {
		enc := qgltf.NewEncoder(w)
		enc.AsBinary = binary
		if !binary {
			enc.SetJSONIndent("", " ")
		}
		return enc.Encode(doc)
	})
}

func (e *Export) document() (*qgltf.Document, error) {
	sk := e.Skeleton
	n := sk.Len()
	joints := e.Joints
	if joints == nil {
		joints = make([]int, n)
		for b := range joints {
			joints[b] = b
		}
	}
	if len(e.InverseBind) != len(joints) {
		return nil, fmt.Errorf("%d inverse bind matrices for %d joints", len(e.InverseBind), len(joints))
	}
	for _, b := range joints {
		if b < 0 || b >= n {
			return nil, fmt.Errorf("joint bone %d outside the %d-bone skeleton", b, n)
		}
	}
	doc := qgltf.NewDocument()
	doc.Asset.Generator = "bonebake"
	doc.Buffers = []*qgltf.Buffer{{}}
	scene := doc.Scenes[0]
	scene.Name = e.Name

	for b := 0; b < n; b++ {
		t := sk.Rest[b]
		node := &qgltf.Node{Name: sk.Names[b], Translation: t.Translation, Rotation: [4]float64(t.Rotation), Scale: t.Scale}
		doc.Nodes = append(doc.Nodes, node)
		if p := sk.Parents[b]; p >= 0 {
			doc.Nodes[p].Children = append(doc.Nodes[p].Children, b)
		} else {
			scene.Nodes = append(scene.Nodes, b)
		}
	}

	ibm := make([][4][4]float32, len(joints))
	for j, m := range e.InverseBind {
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				ibm[j][r][c] = float32(m[r*4+c]) // [row][column]; the encoder writes column-major
			}
		}
	}
	// The inverse binds get a buffer view with no vertex target of their own:
	// modeler.WriteInverseBindMatrices marks it ARRAY_BUFFER, which the Khronos
	// validator refuses (BUFFER_VIEW_TARGET_OVERRIDE).
	ibmAccessor := modeler.WriteAccessor(doc, qgltf.TargetNone, ibm)
	doc.Skins = []*qgltf.Skin{{Name: e.Name, Joints: joints, InverseBindMatrices: qgltf.Index(ibmAccessor), Extras: extras(e.Meta)}}
	if sk.Len() > 0 {
		doc.Skins[0].Skeleton = qgltf.Index(0)
	}

	if m := e.Mesh; m != nil {
		err := addMesh(doc, e.Name, m.Positions, m.Normals, m.UVs, m.Indices,
			modeler.PrimitiveAttribute{Name: qgltf.JOINTS_0, Data: m.Joints},
			modeler.PrimitiveAttribute{Name: qgltf.WEIGHTS_0, Data: m.Weights})
		if err != nil {
			return nil, err
		}
		doc.Nodes = append(doc.Nodes, &qgltf.Node{Name: e.Name + "_mesh", Mesh: qgltf.Index(0), Skin: qgltf.Index(0),
			Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}})
		scene.Nodes = append([]int{len(doc.Nodes) - 1}, scene.Nodes...)
	}

	for _, c := range e.Clips {
		a, err := animation(doc, &c, n)
		if err != nil {
			return nil, fmt.Errorf("clip %q: %w", c.Name, err)
		}
		doc.Animations = append(doc.Animations, a)
	}
	return doc, nil
}

// addMesh writes doc's one mesh: a primitive of the positions, the normals and
// TEXCOORD_0 when they have one entry per position, the extra attributes, and
// the indices.
func addMesh(doc *qgltf.Document, name string, pos, nrm [][3]float32, uv [][2]float32, indices []uint32, extra ...modeler.PrimitiveAttribute) error {
	attrs := []modeler.PrimitiveAttribute{{Name: qgltf.POSITION, Data: pos}}
	if len(nrm) == len(pos) {
		attrs = append(attrs, modeler.PrimitiveAttribute{Name: qgltf.NORMAL, Data: nrm})
	}
	if len(uv) == len(pos) {
		attrs = append(attrs, modeler.PrimitiveAttribute{Name: qgltf.TEXCOORD_0, Data: uv})
	}
	pa, err := modeler.WritePrimitiveAttributes(doc, append(attrs, extra...)...)
	if err != nil {
		return err
	}
	prim := &qgltf.Primitive{Attributes: pa, Indices: qgltf.Index(modeler.WriteIndices(doc, indices))}
	doc.Meshes = []*qgltf.Mesh{{Name: name, Primitives: []*qgltf.Primitive{prim}}}
	return nil
}

// StaticMesh is an unskinned mesh to write as binary glTF (bone animation
// textures' mesh, whose vertices find their texels by TEXCOORD_1).
type StaticMesh struct {
	Name, Generator string
	Positions       [][3]float32
	Normals         [][3]float32 // written when one per position
	UV0, UV1        [][2]float32 // written when one per position
	Indices         []uint32     // three per triangle
}

// EncodeStaticMesh returns m as a GLB file: one node at the scene root holding
// one mesh of one primitive.
func EncodeStaticMesh(m *StaticMesh) ([]byte, error) {
	doc := qgltf.NewDocument()
	doc.Asset.Generator = m.Generator
	doc.Buffers = []*qgltf.Buffer{{}}
	var extra []modeler.PrimitiveAttribute
	if len(m.UV1) == len(m.Positions) {
		extra = append(extra, modeler.PrimitiveAttribute{Name: qgltf.TEXCOORD_1, Data: m.UV1})
	}
	if err := addMesh(doc, m.Name, m.Positions, m.Normals, m.UV0, m.Indices, extra...); err != nil {
		return nil, err
	}
	doc.Nodes = []*qgltf.Node{{Name: m.Name, Mesh: qgltf.Index(0), Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}}}
	doc.Scenes[0].Nodes = []int{0}
	var b bytes.Buffer
	enc := qgltf.NewEncoder(&b)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// animation writes one clip: a shared time accessor and three channels per bone.
func animation(doc *qgltf.Document, c *ExportAnimation, bones int) (*qgltf.Animation, error) {
	keys := len(c.Times)
	if keys == 0 || len(c.Poses) != keys {
		return nil, fmt.Errorf("%d key times and %d poses", keys, len(c.Poses))
	}
	input := modeler.WriteAccessor(doc, qgltf.TargetNone, c.Times)
	doc.Accessors[input].Min = []float64{float64(c.Times[0])}
	doc.Accessors[input].Max = []float64{float64(c.Times[keys-1])}
	a := &qgltf.Animation{Name: c.Name, Extras: extras(c.Meta)}
	for b := 0; b < bones; b++ {
		tr := make([][3]float32, keys)
		ro := make([][4]float32, keys)
		sc := make([][3]float32, keys)
		for k, pose := range c.Poses {
			if len(pose) != bones {
				return nil, fmt.Errorf("pose %d has %d bones, want %d", k, len(pose), bones)
			}
			t := pose[b]
			q := t.Rotation.Normalize()
			if k > 0 && q.Dot(rig.Quat{float64(ro[k-1][0]), float64(ro[k-1][1]), float64(ro[k-1][2]), float64(ro[k-1][3])}) < 0 {
				q = rig.Quat{-q[0], -q[1], -q[2], -q[3]} // same rotation, nearer the previous key
			}
			tr[k] = [3]float32{float32(t.Translation[0]), float32(t.Translation[1]), float32(t.Translation[2])}
			ro[k] = [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
			sc[k] = [3]float32{float32(t.Scale[0]), float32(t.Scale[1]), float32(t.Scale[2])}
		}
		for _, ch := range []struct {
			path qgltf.TRSProperty
			data any
		}{{qgltf.TRSTranslation, tr}, {qgltf.TRSRotation, ro}, {qgltf.TRSScale, sc}} {
			out := modeler.WriteAccessor(doc, qgltf.TargetNone, ch.data)
			a.Samplers = append(a.Samplers, &qgltf.AnimationSampler{Input: input, Output: out, Interpolation: qgltf.InterpolationLinear})
			a.Channels = append(a.Channels, &qgltf.AnimationChannel{Sampler: len(a.Samplers) - 1,
				Target: qgltf.AnimationChannelTarget{Node: qgltf.Index(b), Path: ch.path}})
		}
	}
	return a, nil
}
