package viewer

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/bat"
)

// The BAT mode: the server bakes an asset's bone animation textures
// (docs/formats/bat.md) from the very palettes the page draws, verifies them, and
// hands out the report, the files, and the textures decoded into the stored
// channel values the page samples.

// batKey names one bake: an asset and the preset and format chosen.
type batKey struct {
	id     int
	preset bat.Preset
	format bat.Format
}

// batBake is one bake, verified: the report (with max_error), the files, and
// the texels for the page (see encodeTexels).
type batBake struct {
	report []byte
	out    *bat.Output
	texels []byte
}

type batEntry struct {
	once sync.Once
	bake *batBake
	err  error
	size int64  // bytes held once baked
	used uint64 // when it was last asked for (the cache's clock)
}

// batCache bakes each (asset, preset, format) once, on first request, and keeps
// the bakes most recently asked for within limit bytes (0: maxBATCache): a page
// that tries every preset and format of every asset does not grow the server
// without bound.
type batCache struct {
	mu    sync.Mutex
	m     map[batKey]*batEntry
	clock uint64
	limit int64
	// slots holds one entry per bake running (MaxBaking; nil: no bound): the
	// page asks for every asset's bake at once, and they wait their turn.
	slots chan struct{}
	bake  func(*Asset, bat.Options) (*batBake, error) // nil: bakeBAT
}

// MaxBaking is how many BAT bakes the server runs at once; more wait.
const MaxBaking = 2

// maxBATCache is what the viewer keeps of baked bone animation textures.
const maxBATCache = 512 << 20

// size is what a bake holds in memory.
func (b *batBake) size() int64 {
	n := int64(len(b.report) + len(b.texels))
	for _, f := range b.out.Files {
		n += int64(len(f.Data))
	}
	return n
}

// evict drops the least recently used finished bakes until the rest fit, never
// the one just made (keep).
func (c *batCache) evict(keep batKey) {
	limit := c.limit
	if limit == 0 {
		limit = maxBATCache
	}
	for {
		var total int64
		var oldest batKey
		found := false
		for k, e := range c.m {
			total += e.size
			if k != keep && e.size > 0 && (!found || e.used < c.m[oldest].used) {
				oldest, found = k, true
			}
		}
		if total <= limit || !found {
			return
		}
		delete(c.m, oldest)
	}
}

// errNoMesh answers 404: the asset has no mesh to bake textures for.
var errNoMesh = errors.New("no mesh")

func (c *batCache) get(a *Asset, k batKey) (*batBake, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[batKey]*batEntry{}
	}
	e, ok := c.m[k]
	if !ok {
		e = &batEntry{}
		c.m[k] = e
	}
	c.clock++
	e.used = c.clock
	c.mu.Unlock()
	e.once.Do(func() {
		if c.slots != nil {
			c.slots <- struct{}{}
			defer func() { <-c.slots }()
		}
		bake := c.bake
		if bake == nil {
			bake = bakeBAT
		}
		e.bake, e.err = bake(a, bat.Options{Preset: k.preset, Format: k.format})
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.err == nil {
			e.size = e.bake.size()
		} else {
			delete(c.m, k) // a failed bake is tried again on the next request
		}
		c.evict(k)
	})
	return e.bake, e.err
}

// batInput is the bake's source: the asset's own BPAT palettes (the ones the page
// draws, row for row), its mesh and its inverse bind matrices.
func (a *Asset) batInput() (*bat.Input, error) {
	if a.meshKind == MeshBoxes || a.batIn == nil {
		return nil, fmt.Errorf("%s is drawn as boxes: %w", a.Name, errNoMesh)
	}
	return a.batIn()
}

// bakeBAT bakes and verifies a's textures with opt and decodes them for the page.
// The stack has no padding, so frame row r of the palette block is row r + 1 of
// the bone textures (§2); the clips' first rows are checked to say so.
func bakeBAT(a *Asset, opt bat.Options) (*batBake, error) {
	in, err := a.batInput()
	if err != nil {
		return nil, err
	}
	out, err := bat.Bake(in, opt)
	if err != nil {
		return nil, err
	}
	r := out.Report
	open := func(name string) ([]byte, error) {
		if b := out.File(name); b != nil {
			return b, nil
		}
		return nil, fmt.Errorf("%s: not written by the bake", name)
	}
	if r.MaxError, err = bat.Verify(in, r, open); err != nil {
		return nil, fmt.Errorf("verifying %s: %w", a.Name, err)
	}
	clips := a.file.Clips()
	if len(r.Clips) != len(clips) || r.InvertV {
		return nil, fmt.Errorf("%s: the bake's layout is not the palette's", a.Name)
	}
	// Every clip's first row is its palette frame offset plus one shift (1 after
	// the reference row; 2 with the gametools preset's padding row after it).
	shift := r.Clips[0].FirstRow - clips[0].FrameOffset
	for i, c := range clips {
		if r.Clips[i].FirstRow-c.FrameOffset != shift || r.Clips[i].Frames != c.FrameCount {
			return nil, fmt.Errorf("%s: clip %q starts at row %d, not %d after the palette's frame %d", a.Name, c.Name, r.Clips[i].FirstRow, shift, c.FrameOffset)
		}
	}
	report, err := json.Marshal(struct {
		*bat.Report
		Viewer batPlacement `json:"viewer"`
	}{r, newPlacement(r, shift)})
	if err != nil {
		return nil, err
	}
	texels, err := encodeTexels(out)
	if err != nil {
		return nil, err
	}
	return &batBake{report: report, out: out, texels: texels}, nil
}

// batPlacement is what the page needs beyond the report to draw a bake where the
// palette draws the same frame: bone texture row = palette frame row + RowShift;
// positions decoded in the textures' space go to the scene's by ToScene
// (row-major); stored angles are RadiansPerUnit radians; the bone textures have
// Columns columns per row (0: one per bone).
type batPlacement struct {
	RowShift       int        `json:"row_shift"`
	ToScene        [9]float64 `json:"to_scene"`
	FromScene      [9]float64 `json:"from_scene"` // ToScene's inverse: the mesh is in the scene's space
	RadiansPerUnit float64    `json:"radians_per_unit"`
	Columns        int        `json:"columns"`
}

func newPlacement(r *bat.Report, shift int) batPlacement {
	return batPlacement{RowShift: shift, ToScene: r.ToScene(), FromScene: r.FromScene(), RadiansPerUnit: r.Rotation.RadiansPerUnit(), Columns: len(r.Columns)}
}

// encodeTexels decodes the three textures and the mesh into what the page
// uploads, little-endian float32 throughout: the position, rotation and skin
// textures as RGBA texels (width × height from the report, row 0 first; the
// position's A is 1), then TEXCOORD_1 as two floats per vertex, then the mesh's
// positions and normals (three floats each per vertex; the mesh is posed at the
// reference row, in the scene's space). The values are
// the stored channel values c (bat.DecodeTexture), so the page samples the
// precision of the preset and format, and decodes c·range + offset itself.
func encodeTexels(out *bat.Output) ([]byte, error) {
	r := out.Report
	var b []byte
	put := func(v float32) { b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v)) }
	for _, t := range []struct {
		file, encoding string
		channels, w, h int
	}{
		{r.Position.File, r.Position.Encoding, 3, r.Position.Width, r.Position.Height},
		{r.Rotation.File, r.Rotation.Encoding, 4, r.Rotation.Width, r.Rotation.Height},
		{r.Skin.File, r.Skin.Encoding, 4, r.Skin.Width, r.Skin.Height},
	} {
		tex, err := bat.DecodeTexture(t.file, out.File(t.file), t.encoding, t.channels)
		if err != nil {
			return nil, err
		}
		if tex.Width != t.w || tex.Height != t.h {
			return nil, fmt.Errorf("%s: %d × %d texels, the report says %d × %d", t.file, tex.Width, tex.Height, t.w, t.h)
		}
		for i := range t.w * t.h {
			px := tex.Data[i*t.channels : (i+1)*t.channels]
			for c := range 4 {
				if c < len(px) {
					put(px[c])
				} else {
					put(1)
				}
			}
		}
	}
	pos, uv1, err := bat.ReadMesh(r.Mesh, out.File(r.Mesh))
	if err != nil {
		return nil, err
	}
	nrm, err := bat.ReadMeshNormals(r.Mesh, out.File(r.Mesh))
	if err != nil {
		return nil, err
	}
	for _, uv := range uv1 {
		put(uv[0])
		put(uv[1])
	}
	for _, p := range pos {
		put(p[0])
		put(p[1])
		put(p[2])
	}
	for v := range pos {
		var n [3]float32
		if v < len(nrm) {
			n = nrm[v]
		}
		put(n[0])
		put(n[1])
		put(n[2])
	}
	return b, nil
}

// serveBAT answers /api/bat/{id}?preset=…&format=… (the report),
// /api/bat/{id}/texels?… (decoded for the page) and /api/bat/{id}/{file}?… (a
// file of the bake, byte for byte).
func (s *Server) serveBAT(w http.ResponseWriter, r *http.Request, rest string) {
	if !s.checkToken(w, r) { // a GET that starts a bake: not for an <img> on another site
		return
	}
	idText, what, _ := strings.Cut(rest, "/")
	id, err := strconv.Atoi(idText)
	if err != nil || id < 0 || id >= len(s.assets) || strconv.Itoa(id) != idText {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	opt := bat.Options{Preset: bat.Preset(q.Get("preset")), Format: bat.Format(q.Get("format"))}
	if err := opt.Resolve(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b, err := s.bats.get(s.assets[id], batKey{id, opt.Preset, opt.Format})
	switch {
	case errors.Is(err, errNoMesh):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch what {
	case "":
		s.send(w, r, "application/json", b.report)
	case "texels":
		s.send(w, r, "application/octet-stream", b.texels)
	default:
		data := b.out.File(what)
		if data == nil {
			http.NotFound(w, r)
			return
		}
		s.send(w, r, batContentType(what), data)
	}
}

func batContentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".png"):
		return "image/png"
	case strings.HasSuffix(name, ".exr"):
		return "image/x-exr"
	case strings.HasSuffix(name, ".glb"):
		return "model/gltf-binary"
	case strings.HasSuffix(name, ".xml"):
		return "application/xml"
	}
	return "application/octet-stream"
}
