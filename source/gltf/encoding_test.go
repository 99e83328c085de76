package gltf

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func loadDoc(t *testing.T, d doc) *Model {
	t.Helper()
	m, err := Load(writeModel(t, d), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func floatsOf(t *testing.T, b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// SimpleSkin's rotation keys as stored: buffer 3, 12 VEC4 floats from byte 48.
func simpleSkinRotations(t *testing.T, d doc) []float32 {
	return floatsOf(t, bufferBytes(t, d, 3)[48:48+12*16])
}

func TestQuantizedEncodings(t *testing.T) {
	base := simpleSkin(t)
	want := loadDoc(t, base)
	rot := simpleSkinRotations(t, base)
	if len(want.Clips) != 1 || len(want.Clips[0].Tracks) != 1 {
		t.Fatalf("baseline clips %+v", want.Clips)
	}
	for i, v := range want.Clips[0].Tracks[0].Values {
		if v != rot[i] {
			t.Fatalf("float rotation value %d is %v, stored %v", i, v, rot[i])
		}
	}

	t.Run("rotation shorts", func(t *testing.T) {
		d := simpleSkin(t)
		var b []byte
		for _, v := range rot {
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(math.Round(float64(v)*32767))))
		}
		obj(d, "animations", 0)["samplers"].([]any)[0].(map[string]any)["output"] = addAccessor(d, b, 5122, "VEC4", 12, true)
		got := loadDoc(t, d).Clips[0].Tracks[0].Values
		for i := range rot {
			if math.Abs(float64(got[i]-rot[i])) > 0.6/32767 {
				t.Errorf("value %d: %v, want %v", i, got[i], rot[i])
			}
		}
	})
	t.Run("rotation bytes", func(t *testing.T) {
		d := simpleSkin(t)
		var b []byte
		for _, v := range rot {
			b = append(b, byte(int8(math.Round(float64(v)*127))))
		}
		obj(d, "animations", 0)["samplers"].([]any)[0].(map[string]any)["output"] = addAccessor(d, b, 5120, "VEC4", 12, true)
		got := loadDoc(t, d).Clips[0].Tracks[0].Values
		for i := range rot {
			if math.Abs(float64(got[i]-rot[i])) > 0.6/127 {
				t.Errorf("value %d: %v, want %v", i, got[i], rot[i])
			}
		}
		// -128 clamps to -1
		d = simpleSkin(t)
		b[0] = 0x80
		obj(d, "animations", 0)["samplers"].([]any)[0].(map[string]any)["output"] = addAccessor(d, b, 5120, "VEC4", 12, true)
		if v := loadDoc(t, d).Clips[0].Tracks[0].Values[0]; v != -1 {
			t.Errorf("byte -128 normalized to %v, want -1", v)
		}
	})
	t.Run("vertex attributes", func(t *testing.T) {
		d := simpleSkin(t)
		m := want.Mesh
		var w8, j8, idx32, uv16 []byte
		for v := range m.Weights {
			for k := 0; k < 4; k++ {
				w8 = append(w8, byte(math.Round(float64(m.Weights[v][k])*255)))
				j8 = append(j8, byte(m.Joints[v][k]))
			}
			uv16 = binary.LittleEndian.AppendUint16(uv16, uint16(v*1000))
			uv16 = binary.LittleEndian.AppendUint16(uv16, 65535)
		}
		for _, ix := range m.Indices {
			idx32 = binary.LittleEndian.AppendUint32(idx32, ix)
		}
		p := obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)
		attrs := p["attributes"].(map[string]any)
		attrs["WEIGHTS_0"] = addAccessor(d, w8, 5121, "VEC4", 10, true)
		attrs["JOINTS_0"] = addAccessor(d, j8, 5121, "VEC4", 10, false)
		attrs["TEXCOORD_0"] = addAccessor(d, uv16, 5123, "VEC2", 10, true)
		p["indices"] = addAccessor(d, idx32, 5125, "SCALAR", len(m.Indices), false)
		got := loadDoc(t, d).Mesh
		for v := range m.Weights {
			for k := 0; k < 4; k++ {
				if math.Abs(float64(got.Weights[v][k]-m.Weights[v][k])) > 0.6/255 || got.Joints[v][k] != m.Joints[v][k] {
					t.Errorf("vertex %d: joint %d weight %v, want %d %v", v, got.Joints[v][k], got.Weights[v][k], m.Joints[v][k], m.Weights[v][k])
				}
			}
			if wantU := float32(v*1000) / 65535; got.UVs[v] != [2]float32{wantU, 1} {
				t.Errorf("uv %d = %v, want [%v 1]", v, got.UVs[v], wantU)
			}
		}
		if len(got.Indices) != len(m.Indices) {
			t.Fatalf("%d indices", len(got.Indices))
		}
		for i := range m.Indices {
			if got.Indices[i] != m.Indices[i] {
				t.Fatalf("index %d = %d, want %d", i, got.Indices[i], m.Indices[i])
			}
		}
	})
	t.Run("ubyte indices and non-indexed", func(t *testing.T) {
		m := want.Mesh
		d := simpleSkin(t)
		var idx8 []byte
		for _, ix := range m.Indices {
			idx8 = append(idx8, byte(ix))
		}
		p := obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)
		p["indices"] = addAccessor(d, idx8, 5121, "SCALAR", len(m.Indices), false)
		if got := loadDoc(t, d).Mesh.Indices; len(got) != 24 || got[5] != m.Indices[5] {
			t.Errorf("ubyte indices %v, want %v", got, m.Indices)
		}

		// Expand the triangles into a non-indexed primitive.
		d = simpleSkin(t)
		var pos, wgt []byte
		var jnt []byte
		for _, ix := range m.Indices {
			for k := 0; k < 3; k++ {
				pos = binary.LittleEndian.AppendUint32(pos, math.Float32bits(m.Positions[ix][k]))
			}
			for k := 0; k < 4; k++ {
				wgt = binary.LittleEndian.AppendUint32(wgt, math.Float32bits(m.Weights[ix][k]))
				jnt = binary.LittleEndian.AppendUint16(jnt, m.Joints[ix][k])
			}
		}
		p = obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)
		delete(p, "indices")
		attrs := p["attributes"].(map[string]any)
		n := len(m.Indices)
		attrs["POSITION"] = addAccessor(d, pos, 5126, "VEC3", n, false)
		attrs["WEIGHTS_0"] = addAccessor(d, wgt, 5126, "VEC4", n, false)
		attrs["JOINTS_0"] = addAccessor(d, jnt, 5123, "VEC4", n, false)
		got := loadDoc(t, d).Mesh
		if len(got.Positions) != n || len(got.Indices) != n {
			t.Fatalf("%d vertices, %d indices; want %d each", len(got.Positions), len(got.Indices), n)
		}
		for i, ix := range got.Indices {
			if ix != uint32(i) || got.Positions[i] != m.Positions[m.Indices[i]] {
				t.Fatalf("vertex %d: index %d position %v", i, ix, got.Positions[i])
			}
		}
	})
	t.Run("sparse", func(t *testing.T) {
		d := simpleSkin(t)
		idx := addAccessor(d, []byte{3, 7, 0, 0}, 5121, "SCALAR", 2, false)
		vals := addAccessor(d, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(
			make([]byte, 0, 24), math.Float32bits(9)), math.Float32bits(8)), math.Float32bits(7)), 5126, "VEC3", 1, false)
		// extend the values to two elements
		valsView := obj(d, "accessors", vals)["bufferView"].(int)
		buf := obj(d, "bufferViews", valsView)["buffer"].(int)
		b := append(bufferBytes(t, d, buf), make([]byte, 12)...)
		putFloat(b, 12, 6)
		setBufferBytes(d, buf, b)
		obj(d, "bufferViews", valsView)["byteLength"] = len(b)
		sparse := map[string]any{
			"count":   2,
			"indices": map[string]any{"bufferView": obj(d, "accessors", idx)["bufferView"], "componentType": 5121},
			"values":  map[string]any{"bufferView": valsView},
		}
		obj(d, "accessors", 1)["sparse"] = sparse
		got := loadDoc(t, d).Mesh.Positions
		for v := range got {
			w := want.Mesh.Positions[v]
			switch v {
			case 3:
				w = [3]float32{9, 8, 7}
			case 7:
				w = [3]float32{6, 0, 0}
			}
			if got[v] != w {
				t.Errorf("position %d = %v, want %v", v, got[v], w)
			}
		}
		// A sparse index past the count is refused.
		d2 := simpleSkin(t)
		bad := addAccessor(d2, []byte{3, 10, 0, 0}, 5121, "SCALAR", 2, false)
		v2 := addAccessor(d2, make([]byte, 24), 5126, "VEC3", 2, false)
		obj(d2, "accessors", 1)["sparse"] = map[string]any{
			"count":   2,
			"indices": map[string]any{"bufferView": obj(d2, "accessors", bad)["bufferView"], "componentType": 5121},
			"values":  map[string]any{"bufferView": obj(d2, "accessors", v2)["bufferView"]},
		}
		path := writeModel(t, d2)
		_, err := Load(path, Options{})
		checkErr(t, err, path, RuleAccessor, "sparse index 10")
	})
}

func TestExternalBuffersAndGLB(t *testing.T) {
	base := simpleSkin(t)
	want := loadDoc(t, base)

	t.Run("external files", func(t *testing.T) {
		d := simpleSkin(t)
		dir := t.TempDir()
		for i := range d["buffers"].([]any) {
			name := []string{"b0.bin", "sub dir/b1.bin", "b2.bin", "b3.bin"}[i]
			uri := []string{"b0.bin", "sub%20dir/b1.bin", "./b2.bin", "b3.bin"}[i]
			data := bufferBytes(t, d, i)
			if i == 3 {
				data = append(data, 1, 2, 3) // longer than byteLength: fine
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			obj(d, "buffers", i)["uri"] = uri
		}
		data, _ := json.Marshal(d)
		path := filepath.Join(dir, "m.gltf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, want)

		// A file shorter than its byteLength.
		if err := os.WriteFile(filepath.Join(dir, "b2.bin"), make([]byte, 10), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Load(path, Options{})
		checkErr(t, err, path, RuleBuffer, "10 bytes")
	})

	t.Run("glb", func(t *testing.T) {
		f := makeGLB(t, simpleSkin(t))
		path := filepath.Join(t.TempDir(), "m.glb")
		if err := os.WriteFile(path, f, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, want)
	})
}

func sameModel(t *testing.T, got, want *Model) {
	t.Helper()
	a, _ := json.Marshal([]any{got.Skeleton, got.Joints, got.JointNames, got.MeshNode, got.InverseBind, got.Clips, got.Mesh})
	b, _ := json.Marshal([]any{want.Skeleton, want.Joints, want.JointNames, want.MeshNode, want.InverseBind, want.Clips, want.Mesh})
	if string(a) != string(b) {
		t.Errorf("models differ:\n%s\n%s", a, b)
	}
}

func TestGraphVariants(t *testing.T) {
	t.Run("merged primitives", func(t *testing.T) {
		d := simpleSkin(t)
		want := loadDoc(t, d).Mesh
		prims := obj(d, "meshes", 0)["primitives"].([]any)
		second := map[string]any{"attributes": map[string]any{"POSITION": 1}, "indices": 0}
		obj(d, "meshes", 0)["primitives"] = append(prims, second)
		got := loadDoc(t, d).Mesh
		if len(got.Positions) != 20 || len(got.Indices) != 48 || len(got.Weights) != 20 || len(got.Joints) != 20 {
			t.Fatalf("%d positions %d indices %d weights %d joints", len(got.Positions), len(got.Indices), len(got.Weights), len(got.Joints))
		}
		for i, ix := range want.Indices {
			if got.Indices[24+i] != ix+10 {
				t.Fatalf("second primitive index %d = %d, want %d", i, got.Indices[24+i], ix+10)
			}
		}
		// The second primitive has no skin data: its vertices are bound
		// wholly to joint 0, as glTF loaders bind a vertex with no weight.
		if got.Positions[13] != want.Positions[3] || got.Weights[13] != [4]float32{1} || got.Joints[13] != [4]uint16{} || got.Weights[3] != want.Weights[3] {
			t.Errorf("merged vertices wrong: %v %v %v", got.Positions[13], got.Weights[13], got.Weights[3])
		}
	})
	t.Run("no node uses the skin", func(t *testing.T) {
		d := simpleSkin(t)
		delete(obj(d, "nodes", 0), "skin")
		m := loadDoc(t, d)
		if m.MeshNode != -1 || m.Mesh != nil || len(m.Skeleton.Names) != 2 {
			t.Errorf("MeshNode %d, mesh %v, %d bones", m.MeshNode, m.Mesh != nil, len(m.Skeleton.Names))
		}
	})
	t.Run("second skin, dropped and weights channels", func(t *testing.T) {
		d := simpleSkin(t)
		// node 3: a root outside the skeleton; node 4: a second skin's joint.
		appendTo(d, "nodes", map[string]any{"name": "prop"})
		appendTo(d, "nodes", map[string]any{"name": "other", "rotation": []any{0, 0, 1, 0}})
		appendTo(d, "skins", map[string]any{"joints": []any{4, 2}})
		var tb []byte
		tb = binary.LittleEndian.AppendUint32(tb, math.Float32bits(0))
		tb = binary.LittleEndian.AppendUint32(tb, math.Float32bits(7.25))
		times := addAccessor(d, tb, 5126, "SCALAR", 2, false)
		out := addAccessor(d, make([]byte, 2*3*4), 5126, "SCALAR", 6, false) // 3 morph weights per key
		a := obj(d, "animations", 0)
		a["name"] = "wave"
		s := appendTo(a, "samplers", map[string]any{"input": times, "output": out})
		appendTo(a, "channels", map[string]any{"sampler": s, "target": map[string]any{"node": 0, "path": "weights"}})
		appendTo(a, "channels", map[string]any{"sampler": 0, "target": map[string]any{"node": 3, "path": "rotation"}})
		appendTo(a, "channels", map[string]any{"sampler": 0, "target": map[string]any{"path": "pointer"}})

		m := loadDoc(t, d)
		c := m.Clips[0]
		if c.Name != "wave" || len(c.Tracks) != 1 || c.Duration != 7.25 {
			t.Errorf("clip %q has %d tracks, %v s; want wave, 1, 7.25", c.Name, len(c.Tracks), c.Duration)
		}
		path := writeModel(t, d)
		m2, err := Load(path, Options{Skin: 1})
		if err != nil {
			t.Fatal(err)
		}
		// skin 1: joints "other" (a root) and node 2 (child of node 1); no mesh node.
		if len(m2.Skeleton.Names) != 3 || m2.MeshNode != -1 || m2.JointNames[0] != "other" || m2.JointNames[1] != "node2" {
			t.Errorf("skin 1: bones %v, MeshNode %d, joints %v", m2.Skeleton.Names, m2.MeshNode, m2.JointNames)
		}
		if id := m2.InverseBind[1]; id[0] != 1 || id[5] != 1 || id[10] != 1 || id[15] != 1 || id[3] != 0 {
			t.Errorf("missing inverse bind matrices should be identity, got %v", id)
		}
		// Inspect sees every channel.
		info, err := Inspect(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(info.Animations[0].Channels); n != 4 || info.Animations[0].Duration != 7.25 || len(info.Skins) != 2 {
			t.Errorf("inspect: %d channels, %v s, %d skins", n, info.Animations[0].Duration, len(info.Skins))
		}
	})
	t.Run("duplicate node names stay unique", func(t *testing.T) {
		d := simpleSkin(t)
		obj(d, "nodes", 0)["name"] = "bone"
		obj(d, "nodes", 1)["name"] = "bone"
		obj(d, "nodes", 2)["name"] = "bone"
		m := loadDoc(t, d)
		seen := map[string]bool{}
		for _, n := range m.Skeleton.Names {
			if seen[n] {
				t.Errorf("name %q repeated in %v", n, m.Skeleton.Names)
			}
			seen[n] = true
		}
	})
}

// makeGLB packs a document with data-URI buffers into a GLB file with one BIN chunk.
func makeGLB(t testing.TB, d doc) []byte {
	var bin []byte
	var starts []int
	for i := range d["buffers"].([]any) {
		starts = append(starts, len(bin))
		bin = append(bin, bufferBytes(t, d, i)...)
		for len(bin)%4 != 0 {
			bin = append(bin, 0)
		}
	}
	for i := range d["bufferViews"].([]any) {
		v := obj(d, "bufferViews", i)
		off, _ := v["byteOffset"].(float64)
		v["byteOffset"] = int(off) + starts[int(v["buffer"].(float64))]
		v["buffer"] = 0
	}
	d["buffers"] = []any{map[string]any{"byteLength": len(bin)}}
	js, _ := json.Marshal(d)
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	var f []byte
	f = append(f, "glTF"...)
	f = binary.LittleEndian.AppendUint32(f, 2)
	f = binary.LittleEndian.AppendUint32(f, uint32(12+8+len(js)+8+len(bin)))
	f = binary.LittleEndian.AppendUint32(f, uint32(len(js)))
	f = binary.LittleEndian.AppendUint32(f, 0x4e4f534a)
	f = append(f, js...)
	f = binary.LittleEndian.AppendUint32(f, uint32(len(bin)))
	f = binary.LittleEndian.AppendUint32(f, 0x004e4942)
	return append(f, bin...)
}
