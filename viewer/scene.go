package viewer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Layouts of a crowd.
const (
	LayoutParade = "parade" // every asset's units in rows, cycling through its clips
	LayoutBattle = "battle" // crowd/battle: two armies of the built-in species
)

// MaxUnits is the most units a crowd may have.
const MaxUnits = 20000

const (
	maxStepDt = 0.05
	// oneShotHold is how long (in clip lengths) a one-shot in the parade holds its
	// end pose before it plays again.
	oneShotHold = 0.35
)

// AssetLook is how the page shows an asset: its scale (the page sends 1: models
// are drawn at the size their rest mesh has) and the ground spacing one of its
// units needs (from its measured size).
type AssetLook struct {
	Scale   float32 `json:"scale"`
	Spacing float32 `json:"spacing"`
}

// SceneParams say which scene to build.
type SceneParams struct {
	Layout string      `json:"layout"` // LayoutParade or LayoutBattle
	Count  int         `json:"count"`  // units, 1 to MaxUnits (a battle's riders and horses count one each)
	Only   *int        `json:"only"`   // an asset's index: a crowd of it alone; nil for every asset
	Seed   uint64      `json:"seed"`
	Looks  []AssetLook `json:"assets"` // per asset; nil: scale 1, spacing 1.5
	// Clock plays the parade in the GPU clock mode (clock.go): step answers
	// carry only the records that changed. A battle plays per frame regardless.
	Clock bool `json:"clock"`
}

// Scene is a crowd the server animates with the runtime (a parade or a battle),
// for the page to draw.
// Units are grouped by asset: asset a's units are records First[a] to
// First[a]+Count[a]-1 of Records.
type Scene struct {
	Layout string
	Count  []int // per asset
	First  []int // per asset
	Rider  []int // per asset: the asset its units' riders are drawn with, or -1
	Note   string
	Steps  int

	assets []*Asset
	regs   *slots
	// Records holds every unit's RecordFloats-float GPU record, in asset order.
	Records []float32

	unitAsset []uint16 // per unit
	// play plays the parade: unit u of the crowd is its unit u, then the
	// riders; nil in a battle, whose Crowd plays a clip chosen for a unit
	// itself (crowd.Crowd.Override).
	play      *crowd.Player
	vary      []float32 // per unit: its pace in a chosen clip (crowd.Player.Change, Crowd.Override; a rider takes its horse's)
	base      []uint16  // per unit: the layout's clip (parade)
	riderUnit []int32   // per unit: the playback (parade) or battle unit on it, or −1
	riderMap  [][]unit.ClipID

	clock *clock // the entries a parade in the GPU clock mode sends next, or nil
	// The parade's travel (travel.go): its lanes, each asset's clips' strides
	// and headings, each unit's march and the parade's time; march is nil in a
	// battle.
	lane              lanes
	scale             []float32 // per asset: its look's scale, which a lane's ends shrink
	strides, headings [][]float32
	march             []march
	now               float32

	focus int // the focus unit of the last step, or −1

	battle   *battle.Battle
	battleOf []int32 // per unit: its battle unit
}

// StepInput is what one step of a crowd takes besides time.
type StepInput struct {
	Override []int   // per asset: the clip every unit of it plays, or −1 (nil: none)
	Focus    int     // the asset whose first unit the answer describes, or −1
	Seek     float64 // when not NaN: set the focus unit's phase first (a parade's, or a battle's on a chosen clip)
	NoFade   bool    // clip changes switch at once (crowd.Crowd.NoFade; fade 0 for chosen clips)
}

// Focus is the clip and phase of the focus unit after a step.
type Focus struct {
	Clip  int     // −1 without a focus unit
	Phase float32 // the phase it plays at
	Rate  float32 // phase per second
}

func (p *SceneParams) check(assets int) error {
	if p.Layout != LayoutParade && p.Layout != LayoutBattle {
		return fmt.Errorf("layout %q: want %q or %q", p.Layout, LayoutParade, LayoutBattle)
	}
	if p.Count < 1 || p.Count > MaxUnits {
		return fmt.Errorf("count %d: want 1 to %d", p.Count, MaxUnits)
	}
	if p.Only != nil && (*p.Only < 0 || *p.Only >= assets) {
		return fmt.Errorf("only %d: want an asset index from 0 to %d", *p.Only, assets-1)
	}
	if p.Looks != nil && len(p.Looks) != assets {
		return fmt.Errorf("assets: %d looks for %d assets", len(p.Looks), assets)
	}
	for k, l := range p.Looks {
		if !(l.Scale > 0 && l.Scale < 1e6) || !(l.Spacing > 0 && l.Spacing < 1e6) {
			return fmt.Errorf("assets[%d]: scale %v and spacing %v must be positive and finite", k, l.Scale, l.Spacing)
		}
	}
	return nil
}

// NewScene builds a crowd of the server's assets.
func (s *Server) NewScene(p SceneParams) (*Scene, error) {
	if err := p.check(len(s.assets)); err != nil {
		return nil, err
	}
	looks := p.Looks
	if looks == nil {
		looks = make([]AssetLook, len(s.assets))
		for k := range looks {
			looks[k] = AssetLook{Scale: 1, Spacing: 1.5}
		}
	}
	c := &Scene{Layout: p.Layout, assets: s.assets, regs: s.runtime()}
	c.Rider = make([]int, len(s.assets))
	c.riderMap = make([][]unit.ClipID, len(s.assets))
	for k := range c.Rider {
		c.Rider[k] = -1
	}
	shown := c.shown(p)
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x5eed))
	if p.Layout == LayoutBattle {
		var ok []int
		for _, k := range shown {
			if c.regs.inBattle(k) {
				ok = append(ok, k)
			}
		}
		if len(ok) == 0 {
			c.Note = "no built-in species to fight with: shown in the parade"
			c.Layout = LayoutParade
		} else {
			if len(ok) < len(shown) {
				c.Note = "not in the battle (shown in the parade): " + c.notIn(shown)
			}
			c.buildBattle(p, ok, looks, rng)
			return c, nil
		}
	}
	c.buildParade(p.Count, shown, looks, rng, p.Clock)
	return c, nil
}

func (c *Scene) shown(p SceneParams) []int {
	var out []int
	for k := range c.assets {
		if (p.Only == nil || *p.Only == k) && c.regs.playable(k) {
			out = append(out, k)
		}
	}
	return out
}

func (c *Scene) notIn(shown []int) string {
	var out []string
	for _, k := range shown {
		if why := c.regs.notInBattle[k]; why != "" {
			out = append(out, fmt.Sprintf("%s (%s)", c.assets[k].Name, why))
		}
	}
	return strings.Join(out, "; ")
}

// group sizes the per-asset tables and the records for units listed by asset.
func (c *Scene) group(unitAsset []uint16, looks []AssetLook) {
	n := len(unitAsset)
	c.unitAsset = unitAsset
	c.Count, c.First = make([]int, len(c.assets)), make([]int, len(c.assets))
	for _, a := range unitAsset {
		c.Count[a]++
	}
	for a := 1; a < len(c.assets); a++ {
		c.First[a] = c.First[a-1] + c.Count[a-1]
	}
	c.Records = make([]float32, n*RecordFloats)
	c.scale = make([]float32, len(c.assets))
	for a := range c.scale {
		c.scale[a] = looks[a].Scale
	}
	for i, a := range unitAsset {
		c.Records[i*RecordFloats+recPlace+3] = looks[a].Scale
	}
	c.riderUnit = make([]int32, n)
	for i := range c.riderUnit {
		c.riderUnit[i] = -1
	}
}

// newPlayback makes the playback player: units [0, n) are the crowd's, the
// rest riders. With clocked, it plays in the GPU clock mode. Its one-shots
// replay after holding their end pose for oneShotHold.
func (c *Scene) newPlayback(n int, rng *rand.Rand, clocked bool) {
	c.play = crowd.NewPlayer(c.regs.reg, n, clocked)
	c.play.Hold = oneShotHold
	if clocked {
		c.clock = newClock(c, n)
	}
	c.vary = paces(n, rng)
}

// paces draws n units' paces, about 1.
func paces(n int, rng *rand.Rand) []float32 {
	p := make([]float32, n)
	for u := range p {
		p[u] = 0.9 + 0.2*rng.Float32()
	}
	return p
}

// buildParade lays the shown assets' units out in rows, front to back, each
// asset's units cycling through its clips: unit k of an asset plays its clip
// k mod (its clip count). The rows are the parade's lanes (travel.go): its
// units spread evenly along one, facing +x, the way they travel, at one pace a
// row; the units of a clip that travels have rows of their own (paradeRows), so
// that none walks through another. Every asset's band is about as wide as the
// whole is deep. A horse's units carry riders when a rider species is loaded.
func (c *Scene) buildParade(n int, shown []int, looks []AssetLook, rng *rand.Rand, clocked bool) {
	nA := len(shown)
	share := func(j int) int {
		if j < n%nA {
			return n/nA + 1
		}
		return n / nA
	}
	unitAsset := make([]uint16, 0, n)
	for j, a := range shown {
		for range share(j) {
			unitAsset = append(unitAsset, uint16(a))
		}
	}
	c.group(unitAsset, looks)
	rider := c.paradeRider()
	riders := 0
	for j, a := range shown {
		if c.riderMap[a] != nil {
			riders += share(j)
		}
	}
	c.newPlayback(n+riders, rng, clocked)
	c.base = make([]uint16, n)
	area := 0.0
	for j, a := range shown {
		area += float64(share(j)) * float64(looks[a].Spacing) * float64(looks[a].Spacing)
	}
	width := float32(math.Sqrt(area) * 1.15)
	for _, a := range shown {
		width = max(width, minLane*looks[a].Spacing)
	}
	c.lane = lanes{x0: -width / 2, length: width}
	c.strides, c.headings = c.clipStrides()
	c.march = make([]march, n)
	z := float32(0)
	nextRider := n
	for j, a := range shown {
		m := share(j)
		sp := looks[a].Spacing
		cols := max(1, int(width/sp))
		nClips := max(1, len(c.assets[a].file.Clips()))
		st := c.strides[a]
		rows := paradeRows(m, nClips, cols, func(cl int) bool { return cl < len(st) && st[cl] > 0 })
		for k := range m {
			i := c.First[a] + k
			cl, r := k%nClips, rows.row[k]
			c.base[i] = uint16(cl)
			// One pace a row: that of its first unit.
			c.vary[i] = c.vary[c.First[a]+rows.first[r]]
			if c.riderMap[a] != nil { // it starts and changes with its horse
				c.riderUnit[i] = int32(nextRider)
				if c.clock != nil {
					c.clock.owner[nextRider] = int32(i)
				}
				c.play.Ride(nextRider, i, c.regs.species(rider), c.riderMap[a])
				nextRider++
			}
			c.play.Start(i, c.regs.species(a), unit.ClipID(cl), rng.Float32()*(1+oneShotHold))
			rec := c.Records[i*RecordFloats:]
			x := c.lane.x0 + (float32(rows.col[k])+0.5)*width/float32(rows.size[r])
			rec[recPlace], rec[recPlace+1], rec[recPlace+2] = x, z-float32(r)*sp, c.heading(i)
			c.march[i] = march{x0: x}
			copy(rec[recTint:], hueTint(float32(math.Mod(float64(k)*0.13+float64(j)*0.29, 1))))
			rec[recTint+3] = 0.12
		}
		z -= float32(len(rows.size))*sp + sp*0.6
	}
	for i := range n {
		c.Records[i*RecordFloats+recPlace+1] -= z / 2 // centre the parade on the origin
	}
}

// paradeRow is where an asset's units stand in the parade (paradeRows): each
// unit's row and place in it; each row's length and first unit.
type paradeRow struct{ row, col, size, first []int }

// paradeRows lays out an asset's m units in rows of at most cols, unit k on
// clip k mod nClips: the units of the clips played in place in the front rows,
// in unit order, then the units of each clip that travels (travels) in rows of
// their own, in clip order, so that none walks through another of its row.
func paradeRows(m, nClips, cols int, travels func(cl int) bool) paradeRow {
	p := paradeRow{row: make([]int, m), col: make([]int, m)}
	fill := func(ks []int) {
		for g, k := range ks {
			if g%cols == 0 {
				p.size, p.first = append(p.size, 0), append(p.first, k)
			}
			r := len(p.size) - 1
			p.row[k], p.col[k] = r, g%cols
			p.size[r]++
		}
	}
	var still []int
	moving := make([][]int, nClips)
	for k := range m {
		if cl := k % nClips; travels(cl) {
			moving[cl] = append(moving[cl], k)
		} else {
			still = append(still, k)
		}
	}
	fill(still)
	for _, ks := range moving {
		fill(ks)
	}
	return p
}

// paradeRider finds the rider for the parade's horses: the humanoid species, or
// else any loaded species with a rider table; it fills riderMap and Rider for
// every horse asset and returns the rider's asset.
func (c *Scene) paradeRider() int {
	r := c.regs
	var rs *registry.Species
	for _, s := range r.reg.All() {
		if s.Table(unit.ArchRider) != nil && (rs == nil || s.Name == "humanoid") {
			rs = s
		}
	}
	if rs == nil {
		return -1
	}
	rider := r.asset[rs.ID]
	for a := range c.assets {
		if m := registry.RiderClips(r.battleSpecies(a), rs); m != nil && a != rider {
			c.riderMap[a], c.Rider[a] = m, rider
		}
	}
	return rider
}

// buildBattle runs crowd/battle over the registry: every unit of a
// species an asset in ok is loaded as is drawn, except riders, which their
// horses carry.
func (c *Scene) buildBattle(p SceneParams, ok []int, looks []AssetLook, rng *rand.Rand) {
	r := c.regs
	b := battle.New(r.reg, p.Count, p.Seed)
	b.Workers = runtime.GOMAXPROCS(0) // a large battle's step on every core; the same battle
	c.battle = b
	want := map[int]bool{}
	for _, a := range ok {
		want[a] = true
	}
	// Units by asset, in unit order within one.
	byAsset := make([][]int32, len(c.assets))
	for i := range b.Len() {
		a := r.asset[b.Crowd.Species[i]]
		if b.Mount(i) >= 0 || a < 0 || !want[a] {
			continue
		}
		byAsset[a] = append(byAsset[a], int32(i))
	}
	var unitAsset []uint16
	for a, us := range byAsset {
		for range us {
			unitAsset = append(unitAsset, uint16(a))
		}
	}
	c.group(unitAsset, looks)
	c.vary = paces(len(unitAsset), rng)
	c.battleOf = make([]int32, 0, len(unitAsset))
	for a, us := range byAsset {
		c.battleOf = append(c.battleOf, us...)
		for _, u := range us {
			if rd := b.Rider(int(u)); rd >= 0 {
				if ra := r.asset[b.Crowd.Species[rd]]; ra >= 0 {
					c.Rider[a] = ra
				}
			}
		}
	}
	for i, u := range c.battleOf {
		a := int(c.unitAsset[i])
		c.riderUnit[i] = b.Rider(int(u))
		if rd := c.riderUnit[i]; rd >= 0 && c.Rider[a] != r.asset[b.Crowd.Species[rd]] {
			c.riderUnit[i] = -1 // a rider of another species than the one drawn
		}
		tint := [4]float32{0.95, 0.3, 0.26, 0.2}
		if b.World.Team[u] == 1 {
			tint = [4]float32{0.28, 0.46, 0.98, 0.2}
		}
		copy(c.Records[i*RecordFloats+recTint:], tint[:])
	}
	c.battleRecords()
}

func hueTint(h float32) []float32 {
	f := func(n float32) float32 {
		k := float32(math.Mod(float64(n+h*12), 12))
		return 0.7 + 0.3*max(-1, min(k-3, 9-k, 1))
	}
	return []float32{f(0), f(8), f(4)}
}

// Clocked reports whether the crowd plays in the GPU clock mode.
func (c *Scene) Clocked() bool { return c.play != nil && c.play.Clocked() }

// Len is the number of units drawn.
func (c *Scene) Len() int { return len(c.unitAsset) }

// Extent is the ground rectangle the units stand in, a parade's lanes whole:
// x0, z0, x1, z1.
func (c *Scene) Extent() [4]float32 {
	e := [4]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	for i := range c.Len() {
		x, z := c.Records[i*RecordFloats+recPlace], c.Records[i*RecordFloats+recPlace+1]
		e[0], e[1], e[2], e[3] = min(e[0], x), min(e[1], z), max(e[2], x), max(e[3], z)
	}
	if c.Len() == 0 {
		return [4]float32{}
	}
	if c.march != nil {
		e[0], e[2] = c.lane.x0, c.lane.x0+c.lane.length
	}
	return e
}
