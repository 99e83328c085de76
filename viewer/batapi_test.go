package viewer

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bonebake/bonebake/bat"
	"github.com/bonebake/bonebake/species/creatures"
)

// getBody asks the server for path and returns the status and body.
func getBody(t *testing.T, s *Server, path string) (int, []byte) {
	t.Helper()
	rec := get(t, s, path)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, b
}

// TestBATEndpoints: the server's bake of a built-in creature is the one bat makes
// from the species on its own (file for file), its report carries the verified
// errors, the decoded texels hold the bind pose in row 0, and bad requests fail.
func TestBATEndpoints(t *testing.T) {
	c := creatures.All()[0]
	a, err := FromSpecies(c)
	if err != nil {
		t.Fatal(err)
	}
	boxes, err := LoadBPAT(foxBPAT(t, t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New([]*Asset{a, boxes})

	in, err := bat.FromSpecies(c)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bat.Bake(in, bat.Options{Preset: bat.Raw, Format: bat.EXR})
	if err != nil {
		t.Fatal(err)
	}
	code, body := getBody(t, s, "/api/bat/0?preset=raw&format=exr")
	if code != http.StatusOK {
		t.Fatalf("report: %d %s", code, body)
	}
	r, err := bat.ReadReport("report", body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Bones != in.Bones || r.Vertices != c.Mesh.VertexCount() || r.Preset != "raw" || len(r.Clips) != len(in.Clips) || r.Clips[0].FirstRow != 1 {
		t.Errorf("report: bones %d, vertices %d, preset %q, %d clips (first row %d); want %d, %d, raw, %d, 1",
			r.Bones, r.Vertices, r.Preset, len(r.Clips), r.Clips[0].FirstRow, in.Bones, c.Mesh.VertexCount(), len(in.Clips))
	}
	// The raw float bake is within 1e-4 of the mesh's size (issue 14), and was verified.
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range c.Mesh.Positions {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], float64(p[k])), max(hi[k], float64(p[k]))
		}
	}
	diag := math.Hypot(hi[0]-lo[0], math.Hypot(hi[1]-lo[1], hi[2]-lo[2]))
	if !(r.MaxError.Vertex > 0 && r.MaxError.Vertex < 1e-4*diag) {
		t.Errorf("raw max_error.vertex %g: want in (0, %g)", r.MaxError.Vertex, 1e-4*diag)
	}
	for _, f := range want.Files {
		code, b := getBody(t, s, "/api/bat/0/"+f.Name+"?preset=raw&format=exr")
		if code != http.StatusOK || !bytes.Equal(b, f.Data) {
			t.Errorf("%s: %d, %d bytes; bat.Bake wrote %d bytes (equal %v)", f.Name, code, len(b), len(f.Data), bytes.Equal(b, f.Data))
		}
	}

	// The texels: four floats a texel for the three textures, then TEXCOORD_1, the
	// mesh's positions and its normals (2 + 3 + 3 floats a vertex).
	code, tx := getBody(t, s, "/api/bat/0/texels?preset=raw&format=exr")
	texels := r.Position.Width*r.Position.Height + r.Rotation.Width*r.Rotation.Height + r.Skin.Width*r.Skin.Height
	if code != http.StatusOK || len(tx) != texels*16+r.Vertices*32 {
		t.Fatalf("texels: %d, %d bytes, want %d", code, len(tx), texels*16+r.Vertices*32)
	}
	f := func(i int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(tx[i*4:]))) }
	// The mesh's positions follow TEXCOORD_1: the species' own mesh (raw keeps the scene's space).
	for v, p := range c.Mesh.Positions {
		base := texels*4 + r.Vertices*2 + v*3
		for k := range 3 {
			if got := f(base + k); got != float64(p[k]) {
				t.Fatalf("vertex %d position %d: %v, want %v", v, k, got, p[k])
			}
		}
	}
	for b, ibm := range c.InverseBind() {
		m, _ := ibm.Inverse() // row 0 holds each bone's bind-pose origin (bat.md §2)
		for k, want := range []float64{m[3], m[7], m[11]} {
			if got := f(b*4 + k); math.Abs(got-want) > 1e-6 {
				t.Fatalf("bone %d row 0 channel %d: %v, want %v", b, k, got, want)
			}
		}
	}

	// 8-bit costs precision, and the report says so.
	code, body = getBody(t, s, "/api/bat/0?preset=ue&format=png8")
	r8, err := bat.ReadReport("report", body)
	if code != http.StatusOK || err != nil || !(r8.MaxError.Vertex > 10*r.MaxError.Vertex) {
		t.Errorf("ue/png8: %d %v, max_error.vertex %g vs raw %g", code, err, r8.MaxError.Vertex, r.MaxError.Vertex)
	}

	for _, bad := range []struct {
		path string
		code int
	}{
		{"/api/bat/0?preset=nope", http.StatusBadRequest},
		{"/api/bat/0?preset=raw&format=png8", http.StatusBadRequest},
		{"/api/bat/0?preset=ue&format=exr", http.StatusBadRequest},
		{"/api/bat/2?preset=raw", http.StatusNotFound},
		{"/api/bat/01?preset=raw", http.StatusNotFound},
		{"/api/bat/-1", http.StatusNotFound},
		{"/api/bat/x", http.StatusNotFound},
		{"/api/bat/1?preset=raw", http.StatusNotFound}, // boxes: no mesh
		{"/api/bat/0/nothing.exr?preset=raw", http.StatusNotFound},
		{"/api/bat/0/humanoid.position.exr?preset=raw&format=exr16&x=/../", http.StatusOK},
	} {
		if code, body := getBody(t, s, bad.path); code != bad.code {
			t.Errorf("%s: %d %s, want %d", bad.path, code, body, bad.code)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "http://evil.example/api/bat/0?preset=raw", nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("non-loopback host: %d, want 403", rec.Code)
	}
}
