package viewer

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/species"
)

// Level of detail in the viewer (docs/runtime.md §6.4). The page sends its
// camera's position with each step; the server writes every unit's distance
// from it into the runtime's batches (crowd.Batch.EnableLOD), which choose the
// levels, and puts each unit's level in its record (float 3, and float 15 for
// a horse's rider: recLevel, recRiderLevel) for the page to draw it with.

// bakeSnapshot gives an asset baked from a built-in species the snapshot mesh
// `bonebake bake` writes beside its file (species.Creature.Snapshot), made in memory.
func (a *Asset) bakeSnapshot(s *species.Creature) error {
	if s.Minimal == nil {
		return nil
	}
	b, err := s.SnapshotBytes(a.file)
	if err != nil {
		return err
	}
	if _, err := registry.FitSnapshot(b, a.file); err != nil {
		return fmt.Errorf("%s_minimal.bpsm: %w", s.Name, err)
	}
	a.src.Snapshot = b
	return nil
}

// lodDistances are the level-of-detail distances of an asset's units: its
// species' (registry.DefaultLOD by the file's species id; any other id: the
// humanoids').
func lodDistances(a *Asset) registry.LODDistances {
	id := a.file.Header().SpeciesID
	if id > registry.MaxSpeciesID {
		id = uint32(unit.SpeciesHumanoid)
	}
	return registry.DefaultLOD(unit.SpeciesID(id))
}

type snapshotJSON struct {
	Vertices   int `json:"vertex_count"`
	Triangles  int `json:"triangle_count"`
	FrameTotal int `json:"frame_total"`
	Bytes      int `json:"size"`
	// ClipFrames are its clips' frame counts, for mapping its frames to the
	// palette's (a snapshot may hold fewer, docs/formats/bpsm.md §7).
	ClipFrames []int `json:"clip_frames"`
}

// describeLOD adds the asset's level-of-detail distances and snapshot mesh to
// its description.
func (a *Asset) describeLOD(j *assetJSON) {
	d := lodDistances(a)
	j.LOD = [2]float32{d.Reduced, d.Snapshot}
	if a.src.Snapshot == nil {
		return
	}
	if f, err := registry.FitSnapshot(a.src.Snapshot, a.file); err == nil { // it fitted when loaded
		h := f.Header()
		j.Snapshot = &snapshotJSON{Vertices: int(h.VertexCount), Triangles: int(h.IndexCount / 3), FrameTotal: int(h.FrameTotal), Bytes: len(a.src.Snapshot)}
		for _, c := range f.Clips() {
			j.Snapshot.ClipFrames = append(j.Snapshot.ClipFrames, c.FrameCount)
		}
	}
}

// View is what a step needs to choose levels of detail: whether to, and where
// the camera is.
type View struct {
	LOD bool
	Eye [3]float32 // the camera's position, world metres
}

// parseView reads a step's level-of-detail query: eye (x,y,z: the camera's
// position) and lod (0: every unit at full detail; 1, the default, when eye is
// given: levels by distance from it). Without eye, no levels.
func parseView(q url.Values) (View, error) {
	var v View
	switch s := q.Get("lod"); s {
	case "", "1":
	case "0":
		return v, nil
	default:
		return v, fmt.Errorf("lod %q: want 0 or 1", s)
	}
	s := q.Get("eye")
	if s == "" {
		return v, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return v, fmt.Errorf("eye %q: want x,y,z", s)
	}
	for k, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return v, fmt.Errorf("eye %q: want three finite numbers", s)
		}
		v.Eye[k] = float32(f)
	}
	v.LOD = true
	return v, nil
}

// SetView sets the units' distances from the camera for the next Step, which
// chooses their levels; v.LOD false turns level of detail off (every unit at
// full detail). A unit's distance is that of the point on the ground it stands
// on; a rider's, its horse's.
func (c *Scene) SetView(v View) {
	batch := c.batch()
	if !v.LOD {
		batch.Distance, batch.Level = nil, nil
		return
	}
	if batch.Distance == nil {
		batch.EnableLOD()
	}
	dist := func(x, z float32) float32 {
		dx, dy, dz := float64(x-v.Eye[0]), float64(v.Eye[1]), float64(z-v.Eye[2])
		return float32(math.Sqrt(dx*dx + dy*dy + dz*dz))
	}
	if b := c.battle; b == nil {
		for i := range c.unitAsset {
			rec := c.Records[i*RecordFloats:]
			d := dist(rec[recPlace], rec[recPlace+1])
			c.play.Distance[i] = d
			if r := c.riderUnit[i]; r >= 0 {
				c.play.Distance[r] = d
			}
		}
	} else {
		for u := range b.Len() {
			h := u
			if m := b.Mount(u); m >= 0 {
				h = int(m) // a rider stands where its horse does
			}
			b.Crowd.Distance[u] = dist(b.World.X[h], b.World.Z[h])
		}
	}
}

// putLevels writes each unit's level, and its rider's, into the records (0 with
// level of detail off).
func (c *Scene) putLevels() {
	level := c.batch().Level
	if level == nil {
		return
	}
	for i := range c.unitAsset {
		rec := c.Records[i*RecordFloats:]
		u := i
		if c.battle != nil {
			u = int(c.battleOf[i])
		}
		rec[recLevel] = float32(level[u])
		if r := c.riderUnit[i]; r >= 0 {
			rec[recRiderLevel] = float32(level[r])
		}
	}
}

// batch is the runtime's batch that plays the crowd: the parade's Player's, or
// the battle's Crowd's (a unit with a chosen clip included: Crowd.Override).
func (c *Scene) batch() *crowd.Batch {
	if c.battle != nil {
		return &c.battle.Crowd.Batch
	}
	return c.play.Batch
}
