// Package gltfref is a deliberately plain float64 reference evaluator of glTF 2.0
// skinned animation. Tests use it to check the real baker; nothing ships with it.
//
// It reads the file with the standard library only and shares no code with the
// project's glTF loader or with packages rig and anim. Everything follows the glTF
// 2.0 specification as literally as possible: accessors are decoded element by
// element, every Palette call scans the keys again and walks the node tree from the
// node up to its root, and nothing is cached between calls.
//
// Matrices handed out are row-major: element (row r, column c) is at r*4+c and the
// translation is at 3, 7, 11. (glTF's JSON and its buffers store matrices
// column-major; they are transposed on the way in.)
package gltfref

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Animation describes one glTF animation.
type Animation struct {
	Name     string
	Start    float64 // the smallest input (key time) of any of its node channels' samplers, seconds
	Duration float64 // the largest input (key time) of any of its samplers, seconds
}

// Doc is a parsed glTF file: the node tree, the skins and the decoded animation data.
type Doc struct {
	nodes  []node
	parent []int // parent[n] = the node listing n among its children, or -1
	skins  []skin
	anims  []animation
	meshes []jsonMesh
	rd     *reader // mesh data is read when asked for
}

type node struct {
	name   string
	matrix *[16]float64 // row-major; nil when the node uses TRS
	t      [3]float64
	r      [4]float64 // x, y, z, w
	s      [3]float64
	skin   int // -1 if none
	mesh   int // -1 if none
}

type skin struct {
	joints []int
	ibm    [][16]float64 // row-major, one per joint
}

type animation struct {
	name     string
	start    float64
	duration float64
	channels []channel
}

// Interpolation modes.
const (
	interpLinear = iota
	interpStep
	interpCubic
)

// Target paths.
const (
	pathTranslation = iota
	pathRotation
	pathScale
)

type channel struct {
	node   int
	path   int
	interp int
	times  []float64
	values [][]float64 // LINEAR/STEP: one per key; CUBICSPLINE: 3 per key (in-tangent, value, out-tangent)
}

// --- the JSON schema, only the parts that matter here -------------------------------

type jsonDoc struct {
	Accessors   []jsonAccessor   `json:"accessors"`
	BufferViews []jsonBufferView `json:"bufferViews"`
	Buffers     []jsonBuffer     `json:"buffers"`
	Nodes       []jsonNode       `json:"nodes"`
	Skins       []jsonSkin       `json:"skins"`
	Animations  []jsonAnimation  `json:"animations"`
	Meshes      []jsonMesh       `json:"meshes"`
}

type jsonMesh struct {
	Primitives []struct {
		Attributes map[string]int `json:"attributes"`
		Indices    *int           `json:"indices"`
		Mode       *int           `json:"mode"`
	} `json:"primitives"`
}

type jsonAccessor struct {
	BufferView    *int        `json:"bufferView"`
	ByteOffset    int         `json:"byteOffset"`
	ComponentType int         `json:"componentType"`
	Normalized    bool        `json:"normalized"`
	Count         int         `json:"count"`
	Type          string      `json:"type"`
	Sparse        *jsonSparse `json:"sparse"`
}

type jsonSparse struct {
	Count   int `json:"count"`
	Indices struct {
		BufferView    int `json:"bufferView"`
		ByteOffset    int `json:"byteOffset"`
		ComponentType int `json:"componentType"`
	} `json:"indices"`
	Values struct {
		BufferView int `json:"bufferView"`
		ByteOffset int `json:"byteOffset"`
	} `json:"values"`
}

type jsonBufferView struct {
	Buffer     int `json:"buffer"`
	ByteOffset int `json:"byteOffset"`
	ByteLength int `json:"byteLength"`
	ByteStride int `json:"byteStride"`
}

type jsonBuffer struct {
	URI        *string `json:"uri"`
	ByteLength int     `json:"byteLength"`
}

type jsonNode struct {
	Name        string       `json:"name"`
	Children    []int        `json:"children"`
	Matrix      *[16]float64 `json:"matrix"`
	Translation *[3]float64  `json:"translation"`
	Rotation    *[4]float64  `json:"rotation"`
	Scale       *[3]float64  `json:"scale"`
	Skin        *int         `json:"skin"`
	Mesh        *int         `json:"mesh"`
}

type jsonSkin struct {
	InverseBindMatrices *int  `json:"inverseBindMatrices"`
	Joints              []int `json:"joints"`
}

type jsonAnimation struct {
	Name     string `json:"name"`
	Channels []struct {
		Sampler int `json:"sampler"`
		Target  struct {
			Node *int   `json:"node"`
			Path string `json:"path"`
		} `json:"target"`
	} `json:"channels"`
	Samplers []struct {
		Input         int    `json:"input"`
		Output        int    `json:"output"`
		Interpolation string `json:"interpolation"`
	} `json:"samplers"`
}

// --- loading -------------------------------------------------------------------------

// Load reads a .gltf (buffers in external files or in base64 data: URIs) or a .glb
// file. The container is recognized by its first bytes, not by the file name.
func Load(path string) (*Doc, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var jsonBytes, bin []byte
	hasBin := false
	if len(raw) >= 4 && string(raw[:4]) == "glTF" {
		jsonBytes, bin, hasBin, err = splitGLB(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		jsonBytes = raw
	}
	var jd jsonDoc
	if err := json.Unmarshal(jsonBytes, &jd); err != nil {
		return nil, fmt.Errorf("%s: json: %w", path, err)
	}
	buffers := make([][]byte, len(jd.Buffers))
	for i, b := range jd.Buffers {
		var data []byte
		switch {
		case b.URI == nil:
			if i != 0 || !hasBin {
				return nil, fmt.Errorf("%s: buffer %d has no uri and there is no GLB BIN chunk for it", path, i)
			}
			data = bin
		case strings.HasPrefix(*b.URI, "data:"):
			data, err = decodeDataURI(*b.URI)
		default:
			var name string
			name, err = url.PathUnescape(*b.URI)
			if err == nil {
				data, err = os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(name)))
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: buffer %d: %w", path, i, err)
		}
		if b.ByteLength < 0 || len(data) < b.ByteLength {
			return nil, fmt.Errorf("%s: buffer %d holds %d bytes, byteLength says %d", path, i, len(data), b.ByteLength)
		}
		buffers[i] = data[:b.ByteLength]
	}
	d, err := build(&jd, buffers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// splitGLB returns the JSON chunk and, when present, the BIN chunk of a GLB file.
func splitGLB(raw []byte) (jsonChunk, bin []byte, hasBin bool, err error) {
	if len(raw) < 20 {
		return nil, nil, false, errors.New("glb: shorter than its header")
	}
	le := binary.LittleEndian
	if v := le.Uint32(raw[4:]); v != 2 {
		return nil, nil, false, fmt.Errorf("glb: version %d, want 2", v)
	}
	total := int(le.Uint32(raw[8:]))
	if total > len(raw) || total < 12 {
		return nil, nil, false, fmt.Errorf("glb: header length %d, file has %d bytes", total, len(raw))
	}
	pos := 12
	first := true
	for pos+8 <= total {
		n := int(le.Uint32(raw[pos:]))
		typ := le.Uint32(raw[pos+4:])
		pos += 8
		if n < 0 || n > total-pos {
			return nil, nil, false, errors.New("glb: chunk runs past the end")
		}
		chunk := raw[pos : pos+n]
		switch {
		case first && typ == 0x4E4F534A: // "JSON"
			jsonChunk = chunk
		case first:
			return nil, nil, false, errors.New("glb: first chunk is not JSON")
		case typ == 0x004E4942 && !hasBin: // "BIN\0"
			bin, hasBin = chunk, true
		}
		first = false
		pos += n
	}
	if jsonChunk == nil {
		return nil, nil, false, errors.New("glb: no JSON chunk")
	}
	return jsonChunk, bin, hasBin, nil
}

func decodeDataURI(uri string) ([]byte, error) {
	comma := strings.IndexByte(uri, ',')
	if comma < 0 {
		return nil, errors.New("data URI without a comma")
	}
	if !strings.HasSuffix(uri[:comma], ";base64") {
		return nil, errors.New("data URI is not base64")
	}
	payload := uri[comma+1:]
	if data, err := base64.StdEncoding.DecodeString(payload); err == nil {
		return data, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
}

func build(jd *jsonDoc, buffers [][]byte) (*Doc, error) {
	d := &Doc{}
	n := len(jd.Nodes)
	d.nodes = make([]node, n)
	d.parent = make([]int, n)
	for i := range d.parent {
		d.parent[i] = -1
	}
	for i, jn := range jd.Nodes {
		nd := node{name: jn.Name, r: [4]float64{0, 0, 0, 1}, s: [3]float64{1, 1, 1}, skin: -1, mesh: -1}
		if jn.Mesh != nil {
			nd.mesh = *jn.Mesh // checked when its vertices are asked for
		}
		if jn.Matrix != nil {
			m := transpose(*jn.Matrix)
			nd.matrix = &m
		}
		if jn.Translation != nil {
			nd.t = *jn.Translation
		}
		if jn.Rotation != nil {
			nd.r = *jn.Rotation
		}
		if jn.Scale != nil {
			nd.s = *jn.Scale
		}
		if jn.Skin != nil {
			if *jn.Skin < 0 || *jn.Skin >= len(jd.Skins) {
				return nil, fmt.Errorf("node %d: skin %d out of range", i, *jn.Skin)
			}
			nd.skin = *jn.Skin
		}
		for _, c := range jn.Children {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("node %d: child %d out of range", i, c)
			}
			if d.parent[c] != -1 {
				return nil, fmt.Errorf("node %d has two parents (%d and %d)", c, d.parent[c], i)
			}
			d.parent[c] = i
		}
		d.nodes[i] = nd
	}
	for i := range d.nodes { // every chain up to a root must end
		steps := 0
		for p := d.parent[i]; p != -1; p = d.parent[p] {
			if steps++; steps > n {
				return nil, fmt.Errorf("node %d is in a cycle", i)
			}
		}
	}

	rd := &reader{jd: jd, buffers: buffers}
	d.rd, d.meshes = rd, jd.Meshes
	for si, js := range jd.Skins {
		sk := skin{joints: js.Joints}
		for _, j := range js.Joints {
			if j < 0 || j >= n {
				return nil, fmt.Errorf("skin %d: joint node %d out of range", si, j)
			}
		}
		sk.ibm = make([][16]float64, len(js.Joints))
		if js.InverseBindMatrices == nil {
			for k := range sk.ibm {
				sk.ibm[k] = identity()
			}
		} else {
			els, err := rd.accessor(*js.InverseBindMatrices, false)
			if err != nil {
				return nil, fmt.Errorf("skin %d inverseBindMatrices: %w", si, err)
			}
			if len(els) < len(js.Joints) || (len(els) > 0 && len(els[0]) != 16) {
				return nil, fmt.Errorf("skin %d: inverseBindMatrices is not %d MAT4", si, len(js.Joints))
			}
			for k := range sk.ibm {
				var m [16]float64
				copy(m[:], els[k])
				sk.ibm[k] = transpose(m)
			}
		}
		d.skins = append(d.skins, sk)
	}

	for ai, ja := range jd.Animations {
		an := animation{name: ja.Name, start: math.Inf(1)}
		for ci, jc := range ja.Channels {
			if jc.Target.Node == nil {
				continue // targets something other than a node (an extension)
			}
			var path int
			switch jc.Target.Path {
			case "translation":
				path = pathTranslation
			case "rotation":
				path = pathRotation
			case "scale":
				path = pathScale
			default:
				continue // morph weights and anything unknown do not move the skeleton
			}
			node := *jc.Target.Node
			if node < 0 || node >= n {
				return nil, fmt.Errorf("animation %d channel %d: node %d out of range", ai, ci, node)
			}
			if jc.Sampler < 0 || jc.Sampler >= len(ja.Samplers) {
				return nil, fmt.Errorf("animation %d channel %d: sampler %d out of range", ai, ci, jc.Sampler)
			}
			js := ja.Samplers[jc.Sampler]
			ch := channel{node: node, path: path}
			switch js.Interpolation {
			case "", "LINEAR":
				ch.interp = interpLinear
			case "STEP":
				ch.interp = interpStep
			case "CUBICSPLINE":
				ch.interp = interpCubic
			default:
				return nil, fmt.Errorf("animation %d sampler %d: interpolation %q", ai, jc.Sampler, js.Interpolation)
			}
			in, err := rd.accessor(js.Input, false)
			if err != nil {
				return nil, fmt.Errorf("animation %d sampler %d input: %w", ai, jc.Sampler, err)
			}
			if len(in) == 0 || len(in[0]) != 1 {
				return nil, fmt.Errorf("animation %d sampler %d: input is not a non-empty SCALAR accessor", ai, jc.Sampler)
			}
			for k, e := range in {
				t := e[0]
				if math.IsNaN(t) || math.IsInf(t, 0) || (k > 0 && t <= ch.times[k-1]) {
					return nil, fmt.Errorf("animation %d sampler %d: key times not finite and strictly increasing at key %d", ai, jc.Sampler, k)
				}
				ch.times = append(ch.times, t)
				an.start, an.duration = math.Min(an.start, t), math.Max(an.duration, t)
			}
			// The spec allows normalized integer outputs for rotations; treat them
			// as normalized even if the accessor forgot to say so.
			out, err := rd.accessor(js.Output, path == pathRotation)
			if err != nil {
				return nil, fmt.Errorf("animation %d sampler %d output: %w", ai, jc.Sampler, err)
			}
			want := len(ch.times)
			if ch.interp == interpCubic {
				want *= 3
			}
			width := 3
			if path == pathRotation {
				width = 4
			}
			if len(out) != want || len(out[0]) != width {
				return nil, fmt.Errorf("animation %d sampler %d: output has %d elements of %d components, want %d of %d",
					ai, jc.Sampler, len(out), len(out[0]), want, width)
			}
			ch.values = out
			an.channels = append(an.channels, ch)
		}
		if math.IsInf(an.start, 1) {
			an.start = 0
		}
		d.anims = append(d.anims, an)
	}
	return d, nil
}

// --- accessors -----------------------------------------------------------------------
