package viewer

import (
	"embed"
	"encoding/json"
	"io/fs"
	"math"
	"net"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	bonebakethree "github.com/bonebake/bonebake/js/bonebake-three"
	"github.com/bonebake/bonebake/roster"
)

//go:embed web
var webFS embed.FS

// Server serves the page and the assets it was given; nothing else.
type Server struct {
	assets []*Asset
	meshes [][]byte
	index  []byte            // the /api/assets JSON
	files  map[string][]byte // embedded page files by name, the core's as core/NAME
	regs   slots             // the runtime's view of the assets, one registry (built on first use)
	crowds crowdStore
	bats   batCache
	token  string // what requests that change state or start work carry (guard.go)
	// building holds a slot per crowd being built (MaxBuilding).
	building chan struct{}
	// buildHook, when set, runs while a crowd build holds its slot (tests).
	buildHook func()
	// AllowAnyHost turns off the Host header check. Set it when the server
	// listens on a non-loopback address on purpose: any host name then reaches
	// it, so a site whose name is made to resolve to this address (DNS
	// rebinding) is the page's own origin and passes the Origin and token checks.
	AllowAnyHost bool
}

// maxBody bounds the request body of the POST endpoints (a crowd's parameters
// are a few hundred bytes).
const maxBody = 1 << 20

// HTTPServer returns the http.Server that serves h the way `bonebake view` does:
// besides the header timeout, a whole request must arrive within ReadTimeout, a
// response be taken within WriteTimeout (a BAT bake of a big model included),
// and an idle keep-alive connection closes after IdleTimeout, so that slow or
// stalled clients cannot hold the server's connections open.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: time.Minute}
}

// New returns a server for assets, in the order given (an asset's id is its index).
func New(assets []*Asset) *Server {
	s := &Server{assets: assets, files: map[string][]byte{}, token: newToken(), building: make(chan struct{}, MaxBuilding)}
	entries, _ := fs.ReadDir(webFS, "web")
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, _ := webFS.ReadFile("web/" + e.Name())
			s.files[e.Name()] = b
		}
	}
	// The npm package's core, which the page imports from /core/ (one skinning
	// and playback implementation for the viewer and three.js pages).
	core, _ := fs.ReadDir(bonebakethree.Core, ".")
	for _, e := range core {
		if e.Type().IsRegular() {
			b, _ := fs.ReadFile(bonebakethree.Core, e.Name())
			s.files["core/"+e.Name()] = b
		}
	}
	s.files["index.html"] = withToken(s.files["index.html"], s.token)
	s.bats.slots = make(chan struct{}, MaxBaking)
	list := make([]assetJSON, len(assets))
	for i, a := range assets {
		s.meshes = append(s.meshes, EncodeMesh(a.mesh, a.inverseBind, a.parts))
		list[i] = a.describe(i)
	}
	s.index, _ = json.Marshal(struct {
		Assets []assetJSON `json:"assets"`
	}{list})
	return s
}

// Assets returns the assets the server shows.
func (s *Server) Assets() []*Asset { return s.assets }

type assetJSON struct {
	ID              int           `json:"id"`
	Name            string        `json:"name"`
	Kind            string        `json:"kind"`
	File            string        `json:"file,omitempty"` // the path it was loaded from
	SpeciesID       uint32        `json:"species_id"`
	Version         uint32        `json:"version"`
	Bones           int           `json:"bone_count"`
	FrameTotal      int           `json:"frame_total"`
	BoneNames       []string      `json:"bone_names"` // null when unknown
	Parents         []int         `json:"parents"`    // null when unknown
	Clips           []clipJSON    `json:"clips"`
	Sockets         []socketJSON  `json:"sockets"`
	FileSize        int64         `json:"size"`
	PaletteBytes    uint64        `json:"palette_bytes"`
	SocketDataBytes uint64        `json:"socket_data_bytes"`
	Mesh            string        `json:"mesh"`
	Vertices        int           `json:"vertex_count"`
	Triangles       int           `json:"triangle_count"`
	Textures        []textureJSON `json:"textures"` // fetched from /api/assets/{id}/texture/{k}
	// MountSeat is where its riding clips put a rider's seat (the game's mount
	// frame, roster.MountSeat), for a built-in rider species; the viewer puts that
	// point on the horse's saddle socket. Absent: the riding clips are made for
	// the horse at rest on the rider's ground.
	MountSeat *[3]float64 `json:"mount_seat,omitempty"`
	Warning   string      `json:"warning,omitempty"`
	// Notes say how a rig over the bone limit was brought under it (joints
	// dropped or merged, the worst vertex deviation), as bake prints them.
	Notes []string `json:"notes,omitempty"`
	// Level of detail (lod.go): the distances in metres beyond which its units
	// drop to the reduced and the snapshot level, and its snapshot mesh
	// (fetched from /api/assets/{id}/snapshot), absent when it has none.
	LOD      [2]float32    `json:"lod_distances"`
	Snapshot *snapshotJSON `json:"snapshot,omitempty"`

	// RestBounds is a glTF model's box at rest (low and high corner), from
	// its mesh skinned at the rest pose: a skin bound in another pose keeps
	// its vertices in that pose, and the page frames the model by this box.
	// Absent: the mesh's positions are at rest.
	RestBounds *[2][3]float32 `json:"rest_bounds,omitempty"`
}

type textureJSON struct {
	MIME      string `json:"mime"`
	Bytes     int    `json:"bytes"`
	WrapS     int    `json:"wrap_s"`
	WrapT     int    `json:"wrap_t"`
	MagFilter int    `json:"mag_filter"` // 0: the viewer chooses
	MinFilter int    `json:"min_filter"`
}

type clipJSON struct {
	Name        string             `json:"name"`
	Frames      int                `json:"frame_count"`
	FrameOffset int                `json:"frame_offset"`
	FPS         float32            `json:"fps"` // 0 when the file's value is not a positive number
	Loops       bool               `json:"loops"`
	Duration    float64            `json:"duration_s"`
	Markers     map[string]float32 `json:"markers"`
	// The clip's gait as the crowd runtime plays it (docs/runtime.md §6): cycle in
	// seconds, and for locomotion its ground speed in m/s with its source.
	Cycle             float64 `json:"cycle"`
	GroundSpeed       float64 `json:"ground_speed,omitempty"`
	GroundSpeedSource string  `json:"ground_speed_source,omitempty"`
	// TravelsInFrames: the clip moves the model in its own frames (root
	// motion, not baked in place), so the parade does not move its units.
	TravelsInFrames bool `json:"travels_in_frames,omitempty"`
}

type socketJSON struct {
	Name   string     `json:"name"`
	Anchor int        `json:"anchor_bone"`
	Offset [3]float32 `json:"local_offset"`
}

// describe says what the page needs of asset id; the roster knows the built-in
// species (their gaits, which one rides), as the registry's slots do.
func (a *Asset) describe(id int) assetJSON {
	f := a.file
	h := f.Header()
	j := assetJSON{
		ID: id, Name: a.Name, Kind: a.Kind, SpeciesID: h.SpeciesID, Version: h.Version,
		Bones: f.BoneCount(), FrameTotal: int(h.FrameTotal),
		BoneNames: a.boneNames, Parents: a.parents,
		Clips: []clipJSON{}, Sockets: []socketJSON{},
		FileSize: a.size, PaletteBytes: h.PaletteSize(), SocketDataBytes: h.SocketDataSize(),
		Mesh: a.meshKind, Vertices: a.mesh.VertexCount(), Triangles: a.mesh.TriangleCount(), RestBounds: a.restBounds,
		Textures: []textureJSON{}, Warning: a.warning, Notes: a.notes,
	}
	sp, builtin := roster.ByID(h.SpeciesID)
	builtin = builtin && !a.isModel()
	if builtin && sp.Name == a.Name && slices.Contains(sp.Archetypes, unit.ArchRider) {
		seat := roster.MountSeat
		j.MountSeat = &seat
	}
	for _, t := range a.textures {
		j.Textures = append(j.Textures, textureJSON{MIME: t.MIME, Bytes: len(t.Data), WrapS: t.WrapS, WrapT: t.WrapT, MagFilter: t.MagFilter, MinFilter: t.MinFilter})
	}
	j.File = a.Source
	a.describeLOD(&j)
	table := sp.Gaits // the built-in gaits, as the registry takes them
	if !builtin {
		table = nil
	}
	for _, c := range f.Clips() {
		cj := clipJSON{Name: c.Name, Frames: c.FrameCount, FrameOffset: c.FrameOffset, Loops: c.Loops, Markers: map[string]float32{}}
		if fps := float64(c.FPS); fps > 0 && !math.IsInf(fps, 0) {
			cj.FPS = c.FPS
			cj.Duration = c.Duration()
		}
		g, src := registry.ResolveGait(c.Name, cj.Duration, nil, a.src.Gaits, table)
		cj.Cycle = g.Cycle
		if g.Speed > 0 {
			cj.GroundSpeed, cj.GroundSpeedSource = g.Speed, src
		}
		cj.TravelsInFrames = a.travelsInFrames(c.Name)
		for k, v := range c.Markers {
			if v >= 0 && v <= 1 { // set, and a number JSON can carry
				cj.Markers[bpat.Marker(k).String()] = v
			}
		}
		j.Clips = append(j.Clips, cj)
	}
	for _, so := range f.Sockets() {
		sj := socketJSON{Name: so.Name, Anchor: so.Anchor, Offset: so.Offset}
		for k, v := range sj.Offset {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				sj.Offset[k] = 0
			}
		}
		j.Sockets = append(j.Sockets, sj)
	}
	return j
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".glsl": "text/plain; charset=utf-8",
	".png":  "image/png",
}

// ServeHTTP answers the routes listed in the package documentation and 404 to
// everything else.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.AllowAnyHost && !loopbackHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	if why := foreignOrigin(r); why != "" { // a page on another site (guard.go)
		http.Error(w, "cross-origin request refused: "+why+": the viewer answers only its own page", http.StatusForbidden)
		return
	}
	// The raw path, not a cleaned one: "/../x" or "//x" match no route.
	p := r.URL.Path
	if r.URL.RawPath != "" || strings.Contains(p, "..") || strings.Contains(p, "//") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if p == "/api/crowd" || strings.HasPrefix(p, "/api/crowd/") {
		s.serveCrowd(w, r, strings.TrimPrefix(strings.TrimPrefix(p, "/api/crowd"), "/"))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case p == "/api/assets":
		s.send(w, r, "application/json", s.index)
		return
	case strings.HasPrefix(p, "/api/assets/"):
		s.serveAsset(w, r, strings.TrimPrefix(p, "/api/assets/"))
		return
	case strings.HasPrefix(p, "/api/bat/"):
		s.serveBAT(w, r, strings.TrimPrefix(p, "/api/bat/"))
		return
	}
	name := strings.TrimPrefix(p, "/")
	if name == "" {
		name = "index.html"
	}
	b, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.send(w, r, contentTypes[path.Ext(name)], b)
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request, rest string) {
	idText, what, ok := strings.Cut(rest, "/")
	id, err := strconv.Atoi(idText)
	if !ok || err != nil || id < 0 || id >= len(s.assets) || strconv.Itoa(id) != idText {
		http.NotFound(w, r)
		return
	}
	a := s.assets[id]
	switch what {
	case "palette":
		s.send(w, r, "application/octet-stream", a.file.PaletteBytes())
	case "socketdata":
		s.send(w, r, "application/octet-stream", a.file.SocketDataBytes())
	case "mesh":
		s.send(w, r, "application/octet-stream", s.meshes[id])
	case "snapshot":
		if a.src.Snapshot == nil {
			http.NotFound(w, r)
			return
		}
		s.send(w, r, "application/octet-stream", a.src.Snapshot)
	default:
		k, err := strconv.Atoi(strings.TrimPrefix(what, "texture/"))
		if !strings.HasPrefix(what, "texture/") || err != nil || k < 0 || k >= len(a.textures) || "texture/"+strconv.Itoa(k) != what {
			http.NotFound(w, r)
			return
		}
		s.send(w, r, a.textures[k].MIME, a.textures[k].Data)
	}
}

func (s *Server) send(w http.ResponseWriter, r *http.Request, contentType string, b []byte) {
	h := w.Header()
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface: localhost, 127.0.0.0/8 or ::1, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether a listener's address is on the loopback interface.
func IsLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
