package viewer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species"
)

const foxPath = "../testdata/gltf/Fox.glb"

// swinger is a two-bone creature whose arm turns about z, with a socket at the
// arm's tip and a mesh of two boxes.
func swinger(t testing.TB) *species.Creature {
	t.Helper()
	sk := armSkeleton(t)
	pose := func(phase float64, p []rig.Transform) {
		p[0] = rig.IdentityTransform()
		p[1] = rig.Transform{Translation: [3]float64{0, 1, 0}, Rotation: rig.QuatFromAxisAngle([3]float64{0, 0, 1}, phase*math.Pi/2), Scale: [3]float64{1, 1, 1}}
	}
	m := BoxesMesh(2, 0.2)
	for i := range m.Positions { // boxes at the bind pose: the arm's one unit up
		if m.Joints[i][0] == 1 {
			m.Positions[i][1]++
		}
	}
	return &species.Creature{ID: 9, Name: "swinger", Skeleton: sk, Mesh: m,
		Sockets: []species.Socket{{Name: "tip", Anchor: 1, Offset: [3]float32{1, 0, 0}}},
		Clips: []species.Clip{
			{Clip: bake.Clip{Name: "swing", FPS: 4, Loops: false, Markers: bpat.Markers{-1, -1, 0.5, -1, -1}}, Frames: 5, Pose: pose},
			{Clip: bake.Clip{Name: "spin", FPS: 8, Loops: true, Markers: bpat.NoMarkers()}, Frames: 4, Pose: pose},
		}}
}

// foxBPAT bakes the fox into a .bpat file with a socket, and returns its path.
func foxBPAT(t testing.TB, dir string) string {
	t.Helper()
	m, err := gltf.Load(foxPath, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := gltfbake.Source(m)
	mf := &gltfbake.Manifest{FPS: 24, Sockets: []gltfbake.ManifestSocket{{Name: "head", Bone: "b_Head_05", Offset: [3]float32{0, 10, 0}}}}
	job, err := mf.Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fox_bare.bpat")
	if err := bake.BakeFile(path, job); err != nil {
		t.Fatal(err)
	}
	return path
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:1234"+path, nil)
	if s, ok := h.(*Server); ok {
		req.Header.Set(TokenHeader, s.Token()) // as the page sends it
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestPaletteBytesAreTheFile(t *testing.T) {
	dir := t.TempDir()
	path := foxBPAT(t, dir)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	assets, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(assets)
	// The palette block, found from the header by hand (docs/formats/bpat.md §2).
	le := binary.LittleEndian
	bones, sockets, frames := le.Uint32(raw[12:]), le.Uint32(raw[16:]), le.Uint32(raw[24:])
	off := le.Uint64(raw[56:])
	palEnd := off + uint64(frames)*uint64(bones)*64
	sockEnd := palEnd + uint64(frames)*uint64(sockets)*48
	if sockEnd != uint64(len(raw)) || sockets != 1 {
		t.Fatalf("unexpected layout: palette at %d, socket data ends at %d of %d", off, sockEnd, len(raw))
	}
	for route, want := range map[string][]byte{
		"/api/assets/0/palette":    raw[off:palEnd],
		"/api/assets/0/socketdata": raw[palEnd:sockEnd],
	} {
		rec := get(t, srv, route)
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("%s: status %d, %d bytes; want the file's %d bytes", route, rec.Code, rec.Body.Len(), len(want))
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/octet-stream" {
			t.Errorf("%s: content type %q", route, ct)
		}
	}
}

func TestInMemoryBakeServesWrittenBytes(t *testing.T) {
	s := swinger(t)
	a, err := FromSpecies(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Bake()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bpat.Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(buf.Bytes(), formats.KnownSpecies(9))
	if err != nil {
		t.Fatal(err)
	}
	rec := get(t, New([]*Asset{a}), "/api/assets/0/palette")
	if !bytes.Equal(rec.Body.Bytes(), f.PaletteBytes()) {
		t.Fatalf("palette of an in-memory bake differs from bpat.Write's palette block")
	}
	if a.Kind != KindBuiltin || a.MeshKind() != MeshSpecies || int64(buf.Len()) != a.size {
		t.Fatalf("asset %+v", a)
	}
}

func TestAssetsJSON(t *testing.T) {
	dir := t.TempDir()
	sw, err := FromSpecies(swinger(t))
	if err != nil {
		t.Fatal(err)
	}
	bare, err := LoadBPAT(foxBPAT(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	rec := get(t, New([]*Asset{sw, bare, fox}), "/api/assets")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var list struct {
		Assets []struct {
			ID         int    `json:"id"`
			Name       string `json:"name"`
			Kind       string `json:"kind"`
			SpeciesID  uint32 `json:"species_id"`
			File       string `json:"file"`
			Bones      int    `json:"bone_count"`
			FrameTotal int    `json:"frame_total"`
			BoneNames  []string
			Parents    []int `json:"parents"`
			Clips      []struct {
				Name        string             `json:"name"`
				Frames      int                `json:"frame_count"`
				FrameOffset int                `json:"frame_offset"`
				FPS         float32            `json:"fps"`
				Loops       bool               `json:"loops"`
				Duration    float64            `json:"duration_s"`
				Markers     map[string]float32 `json:"markers"`
			} `json:"clips"`
			Sockets []struct {
				Name   string     `json:"name"`
				Anchor int        `json:"anchor_bone"`
				Offset [3]float32 `json:"local_offset"`
			} `json:"sockets"`
			FileSize  int64  `json:"size"`
			Mesh      string `json:"mesh"`
			Vertices  int    `json:"vertex_count"`
			Triangles int    `json:"triangle_count"`
		} `json:"assets"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Assets) != 3 {
		t.Fatalf("%d assets", len(list.Assets))
	}
	s, b, g := list.Assets[0], list.Assets[1], list.Assets[2]
	if s.ID != 0 || s.Name != "swinger" || s.Kind != "builtin" || s.SpeciesID != 9 || s.Bones != 2 || s.FrameTotal != 9 ||
		len(s.Clips) != 2 || s.Clips[0].Name != "swing" || s.Clips[0].Frames != 5 || s.Clips[0].FPS != 4 || s.Clips[0].Loops ||
		s.Clips[0].Duration != 1 || s.Clips[0].Markers["contact"] != 0.5 || len(s.Clips[0].Markers) != 1 ||
		s.Clips[1].FrameOffset != 5 || !s.Clips[1].Loops || len(s.Sockets) != 1 || s.Sockets[0].Name != "tip" ||
		s.Sockets[0].Anchor != 1 || s.Sockets[0].Offset != [3]float32{1, 0, 0} ||
		fmt.Sprint(s.Parents) != "[-1 0]" || s.Mesh != "species" || s.Vertices != 48 || s.Triangles != 24 {
		t.Errorf("swinger: %+v", s)
	}
	if b.Kind != "bpat" || b.Mesh != "boxes" || b.Parents != nil || b.Bones != 24 || b.Vertices != 24*24 || b.FileSize == 0 || len(b.Sockets) != 1 {
		t.Errorf("bare fox.bpat: %+v", b)
	}
	if g.Kind != "gltf" || g.Mesh != "gltf" || g.Name != "Fox" || g.File != foxPath || s.File != "" || g.Vertices != 1728 || len(g.Parents) != 24 || g.Parents[0] != -1 ||
		len(g.Clips) != 3 || math.Abs(float64(g.Clips[0].FPS)-gltfbake.DefaultFPS) > 0.5 || !g.Clips[0].Loops ||
		math.Abs(g.Clips[0].Duration-3.4166667) > 1e-6 { // Survey's length: the fps plays its 103 frames in exactly that
		t.Errorf("Fox.glb: %+v", g)
	}
}

func TestMeshEndpoint(t *testing.T) {
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	b := get(t, New([]*Asset{fox}), "/api/assets/0/mesh").Body.Bytes()
	le := binary.LittleEndian
	if string(b[:4]) != MeshMagic || le.Uint32(b[4:]) != 2 {
		t.Fatalf("header % x", b[:8])
	}
	v, i, bones, flags, parts := int(le.Uint32(b[8:])), int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), le.Uint32(b[20:]), int(le.Uint32(b[24:]))
	m := fox.Mesh()
	want := MeshHeaderSize + v*48 + (v+3)&^3 + v*8 + i*4 + bones*64 + parts*32
	if v != len(m.Positions) || i != len(m.Indices) || bones != 24 || parts != 1 || flags != MeshHasUVs|MeshHasMaterials || len(b) != want {
		t.Fatalf("counts %d %d %d %d, flags %b, %d bytes (want %d)", v, i, bones, parts, flags, len(b), want)
	}
	// Spot checks: the last vertex's position, its joints and uv, the last index,
	// the first inverse bind matrix and the part.
	o := MeshHeaderSize + (v-1)*12
	if math.Float32frombits(le.Uint32(b[o+8:])) != m.Positions[v-1][2] {
		t.Error("positions misplaced")
	}
	o = MeshHeaderSize + v*24 + (v-1)*8
	if le.Uint16(b[o+2:]) != m.Joints[v-1][1] {
		t.Error("joints misplaced")
	}
	o = MeshHeaderSize + v*48 + (v+3)&^3
	if math.Float32frombits(le.Uint32(b[o+(v-1)*8+4:])) != m.UVs[v-1][1] {
		t.Error("uvs misplaced")
	}
	o += v * 8
	if le.Uint32(b[o+(i-1)*4:]) != m.Indices[i-1] {
		t.Error("indices misplaced")
	}
	o += i * 4
	if math.Float32frombits(le.Uint32(b[o+12:])) != float32(fox.inverseBind[0][3]) {
		t.Error("inverse binds misplaced")
	}
	o += bones * 64
	if le.Uint32(b[o:]) != 0 || int(le.Uint32(b[o+4:])) != i || le.Uint32(b[o+8:]) != 0 || math.Float32frombits(le.Uint32(b[o+28:])) != 1 {
		t.Errorf("part % x, want indices [0, %d), texture 0, white", b[o:o+32], i)
	}
}

// A glTF model's base colour texture is served as the file holds it, and the
// asset list says how to sample it.
func TestTextureEndpoint(t *testing.T) {
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := New([]*Asset{fox})
	rec := get(t, srv, "/api/assets/0/texture/0")
	body := rec.Body.Bytes()
	if ct := rec.Header().Get("Content-Type"); ct != "image/png" || !bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("texture: %s, % x", ct, body[:min(8, len(body))])
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(body)); err != nil || cfg.Width < 64 {
		t.Fatalf("texture does not decode: %v", err)
	}
	var list struct {
		Assets []assetJSON `json:"assets"`
	}
	if err := json.Unmarshal(get(t, srv, "/api/assets").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	want := textureJSON{MIME: "image/png", Bytes: len(body), WrapS: 10497, WrapT: 10497, MagFilter: 9729, MinFilter: 9987}
	if tx := list.Assets[0].Textures; len(tx) != 1 || tx[0] != want {
		t.Errorf("textures %+v, want [%+v]", tx, want)
	}
}

func TestBoxesMesh(t *testing.T) {
	m := BoxesMesh(3, 0.5)
	if m.VertexCount() != 72 || m.TriangleCount() != 36 {
		t.Fatalf("%d vertices, %d triangles", m.VertexCount(), m.TriangleCount())
	}
	// Every triangle winds counter-clockwise seen from outside: its normal points
	// the way the vertex normals do.
	for k := 0; k < len(m.Indices); k += 3 {
		a, b, c := m.Positions[m.Indices[k]], m.Positions[m.Indices[k+1]], m.Positions[m.Indices[k+2]]
		var e1, e2 [3]float32
		for i := range e1 {
			e1[i], e2[i] = b[i]-a[i], c[i]-a[i]
		}
		n := [3]float32{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		vn := m.Normals[m.Indices[k]]
		if n[0]*vn[0]+n[1]*vn[1]+n[2]*vn[2] <= 0 {
			t.Fatalf("triangle %d winds the wrong way", k/3)
		}
		if j := m.Joints[m.Indices[k]][0]; int(j) != k/36 {
			t.Fatalf("triangle %d skinned to bone %d", k/3, j)
		}
	}
}

func TestComputedNormals(t *testing.T) {
	m := &mesh.Skinned{Positions: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Indices: []uint32{0, 1, 2}}
	b := EncodeMesh(m, nil, nil)
	o := MeshHeaderSize + 3*12
	if z := math.Float32frombits(binary.LittleEndian.Uint32(b[o+8:])); z != 1 {
		t.Fatalf("normal z = %v, want 1", z)
	}
}

// rawGet sends path exactly as written, without the client cleaning it.
func rawGet(t *testing.T, addr, path, host string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestServesNothingElse(t *testing.T) {
	sw, err := FromSpecies(swinger(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New([]*Asset{sw}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, p := range []string{"/", "/index.html", "/app.js", "/core/playback.js", "/core/glsl.js", "/skin.vert.glsl", "/style.css", "/api/assets", "/api/assets/0/palette", "/api/assets/0/mesh", "/api/assets/0/socketdata"} {
		if code := rawGet(t, addr, p, addr); code != 200 {
			t.Errorf("GET %s: %d, want 200", p, code)
		}
	}
	for _, p := range []string{
		"/../go.mod", "/..%2fgo.mod", "/%2e%2e/go.mod", "/etc/passwd", "//etc/passwd", "/go.mod", "/server.go", "/web/app.js",
		"/viewer/web/app.js", "/web/", "/api", "/api/", "/api/assets/", "/api/assets/999/palette", "/api/assets/1/palette",
		"/api/assets/-1/palette", "/api/assets/00/palette", "/api/assets/0", "/api/assets/0/", "/api/assets/0/palette/x",
		"/api/assets/0/../../go.mod", "/api/assets/0/file", "/./index.html", "/index.html/", "/app.js%00",
		"/api/assets/0/texture/0", "/api/assets/0/texture/", "/api/assets/0/texture/-1", "/api/assets/0/texture",
		"/playback.js", "/core", "/core/", "/core/index.d.ts", "/core/core.go", "/src/core/playback.js", "/core/../app.js", "/core//playback.js",
	} {
		if code := rawGet(t, addr, p, addr); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	// A page on another site that resolves its own name to 127.0.0.1 (DNS
	// rebinding) sends its own Host: refused.
	if code := rawGet(t, addr, "/api/assets", "evil.example:80"); code != 403 {
		t.Errorf("foreign Host: %d, want 403", code)
	}
	for _, h := range []string{"localhost:1", "127.0.0.1", "[::1]:8080"} {
		if code := rawGet(t, addr, "/api/assets", h); code != 200 {
			t.Errorf("Host %s: %d, want 200", h, code)
		}
	}
	resp, err := http.Post(srv.URL+"/api/assets", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bpat")
	os.WriteFile(bad, []byte("BPAT\x09\x00\x00\x00"), 0o644)
	if _, err := Load([]string{bad}, nil); err == nil {
		t.Error("a truncated .bpat loaded")
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.glb")}, nil); err == nil {
		t.Error("a missing file loaded")
	}
	if _, _, err := Default(dir, nil); err == nil {
		t.Error("Default with nothing to show did not fail")
	}
}

func TestDefault(t *testing.T) {
	dir := t.TempDir()
	sw := swinger(t)
	// No .bpat files: the built-ins, baked in memory.
	as, what, err := Default(dir, []*species.Creature{sw})
	if err != nil || len(as) != 1 || as[0].Kind != KindBuiltin || !strings.Contains(what, "built-in") {
		t.Fatalf("%v %q %v", as, what, err)
	}
	// A .bpat named after a species gets its mesh.
	c, err := sw.Bake()
	if err != nil {
		t.Fatal(err)
	}
	if err := bpat.WriteFile(filepath.Join(dir, "swinger.bpat"), c); err != nil {
		t.Fatal(err)
	}
	as, what, err = Default(dir, []*species.Creature{sw})
	if err != nil || len(as) != 1 || as[0].Kind != KindBPAT || as[0].MeshKind() != MeshSpecies || len(as[0].parents) != 2 {
		t.Fatalf("%+v %v", as, err)
	}
	// What view says it shows counts the .bpat files, not the folder's
	// (its snapshots beside them), in words ("1 files" before).
	if want := "1 .bpat file in " + dir; what != want {
		t.Errorf("Default says %q, want %q", what, want)
	}
	// Without the species it is drawn as boxes.
	as, _, err = Default(dir, nil)
	if err != nil || as[0].MeshKind() != MeshBoxes {
		t.Fatalf("%+v %v", as, err)
	}
}

// CesiumMan's joints and mesh node sit under a Z_UP node: in the scene's space,
// where glTF positions a skinned mesh, he stands along +y. The viewer draws what
// the palettes say, with no correction of its own: his mesh at rest and his first
// frame skinned from the served palette both stand along +y from y≈0.
func TestModelsStandUpright(t *testing.T) {
	man, err := LoadGLTF(testfiles.Path(t, "gltf", "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	standing := func(what string, ps [][3]float32) {
		t.Helper()
		lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for _, p := range ps {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], float64(p[k])), max(hi[k], float64(p[k]))
			}
		}
		if h := hi[1] - lo[1]; !(h > 1.2 && h > hi[0]-lo[0] && h > hi[2]-lo[2]) || math.Abs(lo[1]) > 0.1 {
			t.Errorf("CesiumMan %s: %v to %v; want him standing along +y from y≈0", what, lo, hi)
		}
	}
	standing("at rest", man.Mesh().Positions)
	in, err := man.batInput() // the inverse binds as baked
	if err != nil {
		t.Fatal(err)
	}
	skinned, _, err := man.Mesh().SkinPalette(man.File().Palette(0, 0), in.InverseBind)
	if err != nil {
		t.Fatal(err)
	}
	standing("in frame 0", skinned)
	body := get(t, New([]*Asset{man}), "/api/assets").Body.String()
	if strings.Contains(body, `"display"`) {
		t.Errorf("the asset list still sends a display correction: %s", body[:min(len(body), 300)])
	}
}

// armSkeleton is the two-bone skeleton of the test creatures: a root, and an arm
// standing 1 m above it.
func armSkeleton(t testing.TB) *rig.Skeleton {
	t.Helper()
	sk, err := rig.New([]string{"Root", "Arm"}, []int{-1, 0}, []rig.Transform{
		rig.IdentityTransform(),
		{Translation: [3]float64{0, 1, 0}, Rotation: rig.Quat{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}
