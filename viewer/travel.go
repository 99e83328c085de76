package viewer

import "math"

// The parade's units travel (docs/viewer-wire.md §4 for the clock mode's part).
// Every parade unit walks along its row, its lane, toward +x; a unit playing a
// looping clip with a ground speed (the registry's gait: the gait sidecar's, or
// the built-in table's; docs/formats/gait.md) walks its lane at the speed its
// phase moves at, rate · speed · cycle metres a second (a stride per pass), so
// that feet planted in the bake stand still on the ground and feet that slide
// are seen sliding. A clip without a ground speed, and a one-shot, plays in
// place. So does a clip that carries its travel in its own frames (root
// motion not baked in place, gait.Clip.TravelsInFrames): its frames move the
// unit along its lane, turned as a travelling clip's, and bring it back at
// each pass as the file does; moved at its ground speed too it would travel
// twice (docs/formats/gait.md §4).
// The units of an asset face the way its clips travel: the axis nearest the
// sum of their directions as the gait sidecar measured them
// (registry.Species.Facing, the rule of bake's hint; +z, glTF's forward, when
// none is given) is turned to point along +x. A unit on a clip that travels
// faces the way that clip does: the axis nearest its own direction
// (registry.Clip.Axis, the asset's for a walk forward, across it for a
// strafe, opposite it for a walk backwards) is turned to +x, and the unit
// travels along the lane by its stride times its direction's share of that
// axis. So a model baked without --face that faces another way (three.js's
// Soldier faces −z) is seen walking forward with its feet planted, as bake
// measured it, where a game moving units along their heading would walk it
// backwards (bake's hint says so); and a strafe is seen moving sideways along
// its lane, its feet planted, where it would slide in place.
// A lane is as long as the parade is wide; a unit that walks off its end comes
// back at its start. So that it does not pop there, a travelling unit shrinks
// into the ground over the last metre of its lane and grows out of it over the
// first (lanes.edge): its record's scale, which every draw of it applies (its
// mesh, rider, sword and sockets), on the user's own materials as they are,
// where a fade would need them transparent and sorted. The focus unit, which
// the overlays and the close-up show, is spared: it keeps its size and the
// close-up cuts back with it to the lane's start. A unit in place is spared
// too: it never wraps. A seek moves the unit by the stride of the phase it skips,
// so that a planted foot holds still while the timeline is scrubbed. The battle
// keeps its own positions.

// lanes is where the parade's lanes run along x: from x0, length metres long.
type lanes struct{ x0, length float32 }

// wrap puts x into the lanes: x0 + (x − x0) mod length, as clock.vert.glsl's
// mod does it.
func (l lanes) wrap(x float32) float32 {
	s := x - l.x0
	return l.x0 + (s - l.length*float32(math.Floor(float64(s/l.length))))
}

// edgeWidth is the metres over which a unit shrinks at a lane's end and grows
// at its start: about a stride, short enough that most of the lane shows units
// at full size; a quarter of a lane shorter than 4 m.
const edgeWidth = 1

// edge is the scale factor of a travelling unit at x in the lanes: 0 at either
// end, 1 from edgeWidth inside them (a smoothstep between, so that the shrink
// starts and ends without a jolt). clock.vert.glsl's laneEdge is the same rule,
// in float32 as here; TestLaneEdgeGolden runs both on
// testdata/lane_edge.json.
func (l lanes) edge(x float32) float32 {
	e := min(edgeWidth, l.length*0.25)
	d := min(x-l.x0, l.x0+l.length-x)
	s := min(max(d/e, 0), 1)
	return s * s * (3 - 2*s)
}

// march is a parade unit's travel: at time t0 it stood at x0 (before wrapping),
// and it has moved at v metres a second since.
type march struct{ x0, t0, v float32 }

// minLane is the shortest lane, in units' spacings: room for a few strides.
const minLane = 10

// clipStrides gives, per asset and clip, the metres one pass of the clip carries
// its units along their lane at its ground speed (speed · cycle times its
// direction's share of its axis, registry.Clip.Axis; 0 for a clip that plays
// in place or travels in its own frames), and the heading its units face while they play it: the one that
// turns that axis to +x, or, for a clip in place, the axis its asset's clips
// travel along (registry.Species.Facing). An asset that cannot be played has
// no strides and its units face +z along +x.
func (c *Scene) clipStrides() (strides, headings [][]float32) {
	strides, headings = make([][]float32, len(c.assets)), make([][]float32, len(c.assets))
	for a := range c.assets {
		if !c.regs.playable(a) {
			continue
		}
		sp := c.regs.reg.Species(c.regs.species(a))
		if sp == nil {
			continue
		}
		fx, fz := sp.Facing()
		strides[a], headings[a] = make([]float32, len(sp.Clips)), make([]float32, len(sp.Clips))
		for k, cl := range sp.Clips {
			headings[a][k] = float32(math.Atan2(fz, fx))
			d := cl.Direction
			if d == ([2]float64{}) {
				d = [2]float64{0, 1} // none given: +z
			}
			if g := cl.Gait; cl.Loops && g.Speed > 0 && g.Cycle > 0 {
				ax, az := cl.Axis()
				if !c.assets[a].travelsInFrames(cl.Name) { // else its frames carry it: not twice
					strides[a][k] = float32(g.Speed * g.Cycle * (d[0]*ax + d[1]*az))
				}
				headings[a][k] = float32(math.Atan2(az, ax))
			}
		}
	}
	return strides, headings
}

// stride is the metres parade unit i covers per pass of the clip it plays.
func (c *Scene) stride(i int) float32 {
	st, cl := c.strides[c.unitAsset[i]], int(c.play.Clip[i])
	if cl < len(st) {
		return st[cl]
	}
	return 0
}

// heading is the way parade unit i faces on the clip it plays (clipStrides).
func (c *Scene) heading(i int) float32 {
	h, cl := c.headings[c.unitAsset[i]], int(c.play.Clip[i])
	if cl < len(h) {
		return h[cl]
	}
	return math.Pi / 2 // +z along +x
}

// marchX is where parade unit i stands along its lane at time t.
func (c *Scene) marchX(i int, t float32) float32 {
	m := &c.march[i]
	return c.lane.wrap(m.x0 + m.v*(t-m.t0))
}

// steer starts each parade unit on the speed and heading its clip and rate now
// give: one whose speed changed goes on from where it stands now (and, in the
// clock mode, its entry is sent again, as it is for a new heading).
func (c *Scene) steer() {
	for i := range c.march {
		v, h := c.play.Rate[i]*c.stride(i), c.heading(i)
		m, rh := &c.march[i], &c.Records[i*RecordFloats+recPlace+2]
		if v == m.v && h == *rh {
			continue
		}
		if v != m.v {
			*m = march{x0: c.marchX(i, c.now), t0: c.now, v: v}
		}
		*rh = h
		if c.clock != nil {
			c.clock.collect([]int32{int32(i)})
		}
	}
}

// seekMarch moves parade unit i by the stride of the phase a seek skipped.
func (c *Scene) seekMarch(i int, from, to float32) {
	c.march[i].x0 += (to - from) * c.stride(i)
}

// placeMarchers writes every parade unit's place along its lane at the
// parade's time into its record, and its scale: shrunk at the lane's ends
// while it travels, unless it is the focus unit (lanes.edge).
func (c *Scene) placeMarchers() {
	for i := range c.march {
		x, s := c.marchX(i, c.now), c.scale[c.unitAsset[i]]
		if c.march[i].v != 0 && i != c.focus {
			s *= c.lane.edge(x)
		}
		c.Records[i*RecordFloats+recPlace] = x
		c.Records[i*RecordFloats+recPlace+3] = s
	}
}
