package viewer

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bonebake/bonebake/bat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species"
)

// Kinds of asset, as the JSON reports them.
const (
	KindBPAT    = "bpat"    // a .bpat file given on the command line or found in a directory
	KindGLTF    = "gltf"    // a glTF model (.glb or .gltf), baked when it was loaded
	KindFBX     = "fbx"     // an FBX character, baked when it was loaded
	KindBVH     = "bvh"     // a BVH motion capture, baked on its own skeleton when it was loaded
	KindBuiltin = "builtin" // a built-in species, baked in memory
)

// modelKind is the kind of the model file at path, as gltfbake.Load tells
// them apart (by their first bytes): KindFBX, KindBVH, else KindGLTF.
func modelKind(path string) string {
	switch k, _ := formats.SniffFile(path); k {
	case formats.FBX:
		return KindFBX
	case formats.BVH:
		return KindBVH
	}
	return KindGLTF
}

// isModel reports whether the asset was baked from a model file (glTF, FBX,
// BVH) rather than being a BPAT file or a built-in species.
func (a *Asset) isModel() bool { return a.Kind == KindGLTF || a.Kind == KindFBX || a.Kind == KindBVH }

// Mesh sources, as the JSON reports them.
const (
	MeshGLTF    = "gltf"    // the model's own skinned mesh (a glTF or FBX model's)
	MeshSpecies = "species" // the built-in species' mesh
	MeshBoxes   = "boxes"   // a box per bone, rigidly skinned: a bare .bpat has no mesh
)

// Asset is one creature the viewer shows: a validated BPAT file (read from disk or
// baked in memory, its bytes as a file holds them) and the mesh that draws it.
type Asset struct {
	Name   string // shown in the page: the file's base name without extension, or the species name
	Kind   string // KindBPAT, KindGLTF, KindFBX, KindBVH or KindBuiltin
	Source string // the file it came from; empty for a built-in species

	file *bpat.File
	// src is the BPAT file's bytes as the runtime loads them, with its gait
	// sidecar (beside a .bpat file, or a glTF model's as measured when it was
	// baked; docs/formats/gait.md) and its far-LOD snapshot mesh (docs/formats/bpsm.md,
	// lod.go), each nil when it has none.
	src      registry.File
	size     int64 // the BPAT file's size in bytes
	mesh     *mesh.Skinned
	meshKind string
	// inverseBind holds one row-major matrix per palette bone.
	inverseBind [][16]float32
	// batIn makes the BAT bake's source: the palettes, the inverse binds as
	// baked and the mesh (batapi.go); nil for boxes.
	batIn     func() (*bat.Input, error)
	parts     []MeshPart      // nil: one part in the role colours
	textures  []*gltf.Texture // the parts' base colour images
	boneNames []string        // nil when unknown (a bare .bpat)
	parents   []int           // palette index of each bone's parent, -1 for a root; nil when unknown
	warning   string
	// restBounds is the box (low, high corner) of a glTF model's mesh at rest
	// where the spec puts it (gltf.Model.RestPositions), which the page frames;
	// nil where the mesh's own positions are at rest.
	restBounds *[2][3]float32
	// notes are what bake would print beside the bake: joints dropped or
	// merged to fit the bone limit (and how far that moves the vertices).
	notes []string
}

// File returns the asset's BPAT file.
func (a *Asset) File() *bpat.File { return a.file }

// Mesh returns the mesh the page draws the asset with.
func (a *Asset) Mesh() *mesh.Skinned { return a.mesh }

// Reword rewrites the asset's warning and notes, which the page shows, with
// words: the libraries name their settings (Settings.Scale, Options.Up), and
// the program that loaded the asset says how its user gives them (a flag).
// Call it before New.
func (a *Asset) Reword(words func(string) string) {
	a.warning = words(a.warning)
	for i, n := range a.notes {
		a.notes[i] = words(n)
	}
}

// Warning is what the page says of the asset beside it (a model's size hint,
// what a lenient read accepted), "" when nothing.
func (a *Asset) Warning() string { return a.warning }

// MeshKind says where the mesh came from: MeshGLTF, MeshSpecies or MeshBoxes.
func (a *Asset) MeshKind() string { return a.meshKind }

// viewerShows says what Load takes, for its refusals.
const viewerShows = "the viewer shows BPAT files and models (glTF 2.0 .gltf and .glb, FBX 7 .fbx, BVH .bvh)"

// Load reads each path as what its first bytes say it is: a BPAT file, or a glTF
// model (baked on the fly); a folder gives its .bpat files. A .bpat whose base
// name or species id and bone count match one of known is drawn with that
// species' mesh; otherwise with a box per bone. read are the reader options of
// .bpat files (formats.KnownSpecies, as the other commands are given). Anything
// else is refused with what it is and which command reads it.
func Load(paths []string, known []*species.Creature, read ...formats.Option) ([]*Asset, error) {
	var out []*Asset
	for _, p := range paths {
		k, err := formats.SniffFile(p)
		if errors.Is(err, formats.ErrIsDirectory) {
			as, err := loadFolder(p, known, read)
			if err != nil {
				return nil, err
			}
			out = append(out, as...)
			continue
		}
		if err != nil {
			return nil, err
		}
		var a *Asset
		switch k {
		case formats.BPAT:
			a, err = LoadBPAT(p, known, read...)
		case formats.GLB, formats.GLTF, formats.BVH, formats.FBX:
			a, err = LoadGLTF(p) // gltfbake.Load reads all four; a BVH bakes on its own skeleton, drawn as boxes (docs/formats/bvh.md §5)
		case formats.BPSM:
			err = fmt.Errorf("%s is a BPSM snapshot mesh: %s (bonebake inspect and validate read snapshot meshes; view draws one beside its .bpat)", p, viewerShows)
		case formats.BPX:
			err = fmt.Errorf("%s is a BPX container: unpack it (bonebake bpx unpack %s -o DIR) and view the .bpat files inside", p, p)
		case formats.Mot:
			err = fmt.Errorf("%s is a PlatinumGames motion file: bake it onto its model first (bonebake bake --mot %s --rig MODEL.glb -o OUT.bpat --gltf OUT.glb) and view the result", p, p)
		default:
			if bp, ok := strings.CutSuffix(p, ".gait.json"); ok {
				err = fmt.Errorf("%s is a gait sidecar, read with the BPAT file beside it: view %s.bpat", p, bp)
				break
			}
			err = fmt.Errorf("%s is not a file bonebake knows (by its first bytes): %s", p, viewerShows)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// loadFolder loads the .bpat files of a folder, or says what the folder is.
func loadFolder(dir string, known []*species.Creature, read []formats.Option) ([]*Asset, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.bpat"))
	if len(files) == 0 {
		if bats, _ := filepath.Glob(filepath.Join(dir, "*.bat.json")); len(bats) > 0 {
			return nil, fmt.Errorf("%s holds bone animation textures: the viewer draws those in its panel's BAT mode from the model they were baked from (bonebake view MODEL.glb)", dir)
		}
		return nil, fmt.Errorf("%s is a folder with no .bpat files in it", dir)
	}
	sort.Strings(files)
	return Load(files, known, read...)
}

// Default returns what `bonebake view` shows without paths: the .bpat files in dir
// when it has any (with the meshes of the built-in species of the same names),
// else every species of builtins baked in memory. It also says which it did.
func Default(dir string, builtins []*species.Creature, read ...formats.Option) ([]*Asset, string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.bpat"))
	if err != nil {
		return nil, "", err
	}
	if len(files) > 0 {
		sort.Strings(files)
		as, err := Load(files, builtins, read...)
		return as, fmt.Sprintf("%s in %s", words.Plural(len(files), ".bpat file"), dir), err
	}
	if len(builtins) == 0 {
		return nil, "", fmt.Errorf("no .bpat files in %s and no built-in creatures to bake: give .bpat files or glTF models", dir)
	}
	var out []*Asset
	for _, s := range builtins {
		a, err := FromSpecies(s)
		if err != nil {
			return nil, "", err
		}
		out = append(out, a)
	}
	return out, fmt.Sprintf("%d built-in creatures baked in memory", len(out)), nil
}

// parseBPAT validates b strictly with the reader options read (the command line
// passes the known species, as it does to validate); a file that only the game's
// lenient reader accepts is shown with a warning saying why, like validate
// --lenient.
func parseBPAT(name string, b []byte, read []formats.Option) (*bpat.File, string, error) {
	opts := append([]bpat.Option{formats.Name(name)}, read...)
	f, err := bpat.Parse(b, opts...)
	if err == nil {
		return f, "", nil
	}
	lf, lerr := bpat.Parse(b, append(opts, formats.Lenient())...)
	if lerr != nil {
		return nil, "", err
	}
	warning := "accepted only by the lenient reader: " + err.Error()
	if fe := (*formats.FormatError)(nil); errors.As(err, &fe) && fe.Rule == formats.RuleSpecies {
		warning += roster.AcceptHint(lf.Header().SpeciesID) // as validate says it
	}
	return lf, warning, nil
}

// LoadBPAT reads a BPAT file. Its mesh is that of the species in known whose name
// is the file's base name, or else whose id is the file's species id, when the
// bone counts agree; otherwise a box per bone.
func LoadBPAT(path string, known []*species.Creature, read ...formats.Option) (*Asset, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, warning, err := parseBPAT(path, b, read)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	a := &Asset{Name: name, Kind: KindBPAT, Source: path, file: f, src: registry.File{Data: b}, size: int64(len(b)), warning: warning}
	if s := matchSpecies(name, f, known); s != nil {
		a.useSpecies(s)
	} else {
		a.useBoxes()
	}
	// Its gait sidecar and snapshot mesh, as the crowd runtime reads them
	// (docs/runtime.md §6, §6.4); one that cannot be read is a warning, and the
	// file plays without it.
	gaitErr, snapErr := a.src.ReadBeside(path, f)
	if gaitErr != nil {
		a.warn("gait sidecar ignored: " + gaitErr.Error())
	}
	if snapErr != nil {
		a.warn("snapshot mesh ignored: " + snapErr.Error())
	}
	return a, nil
}

func (a *Asset) warn(w string) {
	a.warning = strings.TrimPrefix(a.warning+"; ", "; ") + w
}

// travelsInFrames says the asset's clip carries its travel in its own frames
// (its gait sidecar's gait.Clip.TravelsInFrames): the parade does not move
// its units along their lanes (travel.go).
func (a *Asset) travelsInFrames(clip string) bool {
	if a.src.Gaits == nil {
		return false
	}
	c, ok := a.src.Gaits.Clip(clip)
	return ok && c.TravelsInFrames()
}

// matchSpecies returns the species of known a file is drawn as, by the runtime's
// rule (registry.MatchSpecies: by name, then species id) among those whose mesh fits
// its bones.
func matchSpecies(name string, f *bpat.File, known []*species.Creature) *species.Creature {
	var fit []*species.Creature
	for _, s := range known {
		if s != nil && s.Skeleton != nil && s.Skeleton.Len() == f.BoneCount() && s.Mesh != nil {
			fit = append(fit, s)
		}
	}
	s, _, _ := registry.MatchSpecies(name, f.Header().SpeciesID, fit, func(s *species.Creature) (string, uint32) { return s.Name, s.ID })
	return s
}

// FromSpecies bakes a species in memory. The asset's BPAT bytes are what
// `bpat.Write` produces, the same bytes a baked file holds.
func FromSpecies(s *species.Creature) (*Asset, error) {
	b, err := s.Bytes()
	if err != nil {
		return nil, err
	}
	f, err := bpat.Parse(b, formats.Name(s.Name+".bpat"), formats.KnownSpecies(s.ID))
	if err != nil {
		return nil, err
	}
	a := &Asset{Name: s.Name, Kind: KindBuiltin, file: f, src: registry.File{Data: b}, size: int64(len(b))}
	a.useSpecies(s)
	if err := a.bakeSnapshot(s); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Asset) useSpecies(s *species.Creature) {
	a.mesh, a.meshKind = s.Mesh, MeshSpecies
	a.boneNames = s.Skeleton.Names
	a.parents = s.Skeleton.Parents
	bind := s.InverseBind()
	a.inverseBind = matrices32(bind)
	a.batIn = func() (*bat.Input, error) { return bat.FromBPAT(a.Name, a.file, bind, a.mesh) }
}

// LoadGLTF loads a skinned glTF model and bakes every animation (with the fps,
// loop flags, markers and sockets its bonebake extras carry, else looping at
// gltfbake.DefaultFPS). It is drawn with its own mesh and skin.
func LoadGLTF(path string) (*Asset, error) {
	return LoadGLTFWith(path, gltfbake.Settings{})
}

// LoadGLTFWith is LoadGLTF with bake settings, such as clip files put on the
// model (view MODEL --clips …) or its scale; the textures are always read. A
// model whose size looks wrong (gltfbake.Size.Hint: centimetres) carries the
// hint as a warning.
func LoadGLTFWith(path string, s gltfbake.Settings) (*Asset, error) {
	s.Textures = true
	model, err := gltfbake.Load(path, s)
	if err != nil {
		return nil, err
	}
	m, job := model.GLTF, model.Job
	if len(m.Clips) == 0 {
		return nil, fmt.Errorf("%s: the model has no animations to show", path)
	}
	b, err := model.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := bpat.Parse(b, formats.Name(path), formats.KnownSpecies(job.SpeciesID))
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	a := &Asset{Name: name, Kind: modelKind(path), Source: path, file: f, src: registry.File{Data: b}, size: int64(len(b)), boneNames: m.JointNames}
	a.src.Gaits = model.Gaits(name + ".bpat") // measured as bake measures them
	a.parents = jointParents(m)
	if m.Mesh != nil && len(m.Mesh.Positions) > 0 {
		a.mesh, a.meshKind = m.Mesh, MeshGLTF
		a.restBounds = boundsOf(m.RestPositions())
		a.inverseBind = matrices32(m.InverseBind)
		a.batIn = func() (*bat.Input, error) { return bat.FromBPAT(a.Name, a.file, m.InverseBind, a.mesh) }
		index := map[*gltf.Texture]int{} // parts that share a texture share its upload
		for _, p := range m.Parts {
			mp := MeshPart{First: p.First, Count: p.Count, Color: p.Material.BaseColor, Texture: -1}
			if t := p.Material.Texture; t != nil {
				k, ok := index[t]
				if !ok {
					k = len(a.textures)
					index[t] = k
					a.textures = append(a.textures, t)
				}
				mp.Texture = k
			}
			a.parts = append(a.parts, mp)
		}
	} else {
		a.useBoxes() // a Draco mesh, or none: its warning says which
	}
	a.warning = strings.Join(m.Warnings, "; ")
	// What bake prints as its hints: a model in centimetres is drawn 100 times
	// too big; a clip that travels in its own frames would travel twice in a
	// game that moves its units (the parade does not, travel.go).
	for _, h := range []string{model.Size().Hint(), gltfbake.RootMotionHint(a.src.Gaits)} {
		if h != "" {
			a.warn(h)
		}
	}
	a.notes = model.Reduction.Notes()
	return a, nil
}

// boundsOf returns the box around the finite points of ps, or nil when there
// are none.
func boundsOf(ps [][3]float32) *[2][3]float32 {
	var b *[2][3]float32
	for _, p := range ps {
		if !finite3(p) {
			continue
		}
		if b == nil {
			b = &[2][3]float32{p, p}
		}
		for k := range 3 {
			b[0][k], b[1][k] = min(b[0][k], p[k]), max(b[1][k], p[k])
		}
	}
	return b
}

func finite3(p [3]float32) bool {
	for _, x := range p {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// jointParents gives each joint the palette index of its nearest ancestor that is
// also a joint, or -1.
func jointParents(m *gltf.Model) []int {
	joint := make(map[int]int, len(m.Joints))
	for j, b := range m.Joints {
		joint[b] = j
	}
	parents := make([]int, len(m.Joints))
	for j, b := range m.Joints {
		parents[j] = -1
		for p := m.Skeleton.Parents[b]; p >= 0; p = m.Skeleton.Parents[p] {
			if pj, ok := joint[p]; ok {
				parents[j] = pj
				break
			}
		}
	}
	return parents
}

// matrices32 writes rig.Mat4s as float32s.
func matrices32[M any, P interface {
	*M
	PutFloat32([]float32)
}](ms []M) [][16]float32 {
	out := make([][16]float32, len(ms))
	for i := range ms {
		P(&ms[i]).PutFloat32(out[i][:])
	}
	return out
}

// useBoxes gives a bare palette a body: a small cube at each bone's origin,
// rigidly skinned to it, with identity inverse binds (the cube is made in the
// bone's own space). Its size follows the spread of the bones in the first frame.
func (a *Asset) useBoxes() {
	n := a.file.BoneCount()
	p := a.file.Palette(0, 0)
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for b := 0; b < n; b++ {
		for k, i := range [3]int{3, 7, 11} {
			v := float64(p[b*16+i])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
		}
	}
	extent := 0.0
	for k := range lo {
		if hi[k] > lo[k] {
			extent = max(extent, hi[k]-lo[k])
		}
	}
	half := float32(0.05)
	if extent > 0 {
		half = float32(extent * 0.03)
	}
	a.mesh, a.meshKind = BoxesMesh(n, half), MeshBoxes
	a.inverseBind = make([][16]float32, n)
	for i := range a.inverseBind {
		a.inverseBind[i] = [16]float32{0: 1, 5: 1, 10: 1, 15: 1}
	}
}

// BoxesMesh returns bones cubes of half-size half centred on the origin, cube b
// skinned entirely to bone b: with identity inverse binds each sits on its bone.
func BoxesMesh(bones int, half float32) *mesh.Skinned {
	m := &mesh.Skinned{}
	// The six faces: normal, and two axes spanning the face (u × v = normal).
	faces := [6][3][3]float32{
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
		{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
	}
	for b := 0; b < bones; b++ {
		for _, f := range faces {
			nrm, u, v := f[0], f[1], f[2]
			base := uint32(len(m.Positions))
			for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				var pos [3]float32
				for k := range pos {
					pos[k] = half * (nrm[k] + c[0]*u[k] + c[1]*v[k])
				}
				m.Positions = append(m.Positions, pos)
				m.Normals = append(m.Normals, nrm)
				m.Joints = append(m.Joints, [4]uint16{uint16(b)})
				m.Weights = append(m.Weights, [4]float32{1})
				m.Roles = append(m.Roles, uint8(b%3))
			}
			m.Indices = append(m.Indices, base, base+1, base+2, base, base+2, base+3)
		}
	}
	return m
}
