package quadruped

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

func TestLegPhases(t *testing.T) {
	walk := HorseGaits()[1]
	for _, tm := range []float64{0, 0.1, 0.37, 0.8} {
		m := Evaluate(HorseDims(), HorseConfig(), walk, tm)
		if d := Wrap(m.Legs[FR].Phase - m.Legs[FL].Phase); math.Abs(d-0.5) > 1e-12 {
			t.Errorf("horse walk t=%v: FR − FL = %v, want .5", tm, d)
		}
		if d := Wrap(m.Legs[FL].Phase - m.Legs[BL].Phase); math.Abs(d-0.25) > 1e-12 {
			t.Errorf("horse walk t=%v: FL − BL = %v, want .25 (front phase .25, rear 0)", tm, d)
		}
	}
	trot := HorseGaits()[2]
	m := Evaluate(HorseDims(), HorseConfig(), trot, 0.2)
	if math.Abs(m.Legs[FL].Phase-m.Legs[BR].Phase) > 1e-12 || math.Abs(m.Legs[FR].Phase-m.Legs[BL].Phase) > 1e-12 {
		t.Errorf("horse trot: diagonal pairs not together: %+v", m.Legs)
	}
	for _, g := range ElephantGaits() {
		m := Evaluate(ElephantDims(), ElephantConfig(), g, 0.3*g.Cycle)
		for leg, off := range [NumLegs]float64{0, 0.5, 0.75, 0.25} {
			if d := Wrap(m.Legs[leg].Phase - m.Legs[FL].Phase); math.Abs(d-off) > 1e-9 {
				t.Errorf("elephant %s: leg %s is %v after FL, want %v", g.Name, legNames[leg], d, off)
			}
		}
	}
	// Each leg swings for its swing fraction of the cycle.
	for _, c := range creatures() {
		for _, g := range c.gaits {
			sw := 0
			const n = 1000
			for k := range n {
				if Evaluate(c.plan.dims, c.plan.cfg, g, (float64(k)+0.5)/n*g.Cycle).Legs[FL].Swinging {
					sw++
				}
			}
			if want := c.plan.cfg.SwingFraction(g); math.Abs(float64(sw)/n-want) > 2.0/n {
				t.Errorf("%s %s: FL swings %.3f of the cycle, want %.3f", c.s.Name, g.Name, float64(sw)/n, want)
			}
		}
	}
}

func TestGaitFormulas(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	near("Wrap(2.25)", Wrap(2.25), 0.25)
	near("Wrap(-0.25)", Wrap(-0.25), 0.75)
	near("MovingPhase(0.55, 1.1, 0.25)", MovingPhase(0.55, 1.1, 0.25, 1e-3), 0.75)
	near("MovingPhase with a zero cycle", MovingPhase(0.0005, 0, 0.1, 1e-3), 0.6)

	// Hand-computed from the quadruped gait of docs/species.md, with the default harmonics.
	c := Config{Harmonics: DefaultHarmonics(), BobAmplitude: 0.1, BobBase: 0.5, BobIntensity: 0.5}
	// p = 0: .7·sin 0 + .3·sin(2π·.38) = .3·0.684547105928689
	near("Bob(0)", c.Bob(0, 1), 0.3*0.684547105928689*0.1*1.0)
	// p = .25: .7·1 + .3·sin(2π·.88) = .7 − .3·0.684547105928689; intensity .6 → scale .8
	near("Bob(.25)", c.Bob(0.25, 0.6), (0.7-0.3*0.684547105928689)*0.1*0.8)
	// p = .5: .7·0 + .3·sin(2π·1.38) = .3·0.684547105928689
	near("Bob(.5)", c.Bob(0.5, 0), 0.3*0.684547105928689*0.1*0.5)
	// p = .75: −.7 + .3·sin(2π·1.88) = −.7 − .3·0.684547105928689
	near("Bob(.75)", c.Bob(0.75, 1), (-0.7-0.3*0.684547105928689)*0.1)
	c.Harmonics.W3, c.Harmonics.F3, c.Harmonics.Phi3 = 0.5, 3, 0.1
	// the third term at p = 0: .5·sin(2π·.3) = .5·0.951056516295154
	near("Bob(0) with a third harmonic", c.Bob(0, 1), (0.3*0.684547105928689+0.5*0.951056516295154)*0.1)

	near("Intensity(walk)", Intensity(0.24, 0.07, false), 0.62+0.24*0.24+0.07*2.2*0.14)
	near("Intensity(idle)", Intensity(0.015, 0.008, false), 0.62+0.015*0.24+0.008*2.2*0.14)
	near("Intensity(trot) clamps", Intensity(0.62, 0.24, true), 1)
	near("Intensity(elephant run) clamps", Intensity(0.70, 0.25, true), 1)
	near("Intensity(lift clamps)", Intensity(0, 1, false), 0.62+0.14)
	near("Intensity(swing clamps)", Intensity(3, 0, false), 0.62+0.24)
	near("Intensity(negative)", Intensity(-5, -5, false), 0.62)

	for _, x := range []struct{ t, ease, arc float64 }{{0, 0, 0}, {0.25, 0.15625, 0.75}, {0.5, 0.5, 1}, {0.75, 0.84375, 0.75}, {1, 1, 0}} {
		near("SwingEase", SwingEase(x.t), x.ease)
		near("SwingArc", SwingArc(x.t), x.arc)
	}

	// Default foot under the hip: body + (±.52·w, −.42·h, ±.48·l), on the ground.
	d := Dims{Width: 1, Height: 2, Length: 3, BodyHeight: 2, FootHeight: 0.1}
	for leg, want := range [NumLegs]rig.Vec3{{0.52, -0.84, 1.44}, {-0.52, -0.84, 1.44}, {0.52, -0.84, -1.44}, {-0.52, -0.84, -1.44}} {
		if h := d.Hip(leg); dist(h, want) > 1e-12 {
			t.Errorf("Hip(%s) = %v, want %v", legNames[leg], h, want)
		}
		if f := d.DefaultFoot(leg); dist(f, rig.Vec3{want[0], 0.1, want[2]}) > 1e-12 {
			t.Errorf("DefaultFoot(%s) = %v", legNames[leg], f)
		}
	}

	// A swinging foot: at mid-swing it is at the default foot's z, lifted by the
	// full lift; a planted foot at mid-stance also sits under the hip.
	g := Gait{Cycle: 1, Swing: 0.5, Lift: 0.2, Speed: 2}
	cfg := Config{Harmonics: DefaultHarmonics(), SwingDuration: 0.25}
	m := Evaluate(d, cfg, g, 0.125) // FL phase .125: half way through its swing
	home := d.DefaultFoot(FL)
	if want := home.Add(rig.Vec3{0, 0.2 * d.LegHeight(), 0}); dist(m.Legs[FL].Foot, want) > 1e-12 || !m.Legs[FL].Swinging {
		t.Errorf("mid-swing foot %v, want %v", m.Legs[FL].Foot, want)
	}
	m = Evaluate(d, cfg, g, 0.625) // FL phase .625: half way through its stance
	if dist(m.Legs[FL].Foot, home) > 1e-12 || m.Legs[FL].Swinging {
		t.Errorf("mid-stance foot %v, want %v", m.Legs[FL].Foot, home)
	}
	// Stance travel: Speed · cycle · (1 − swing) = 1.5 m, so at the start of the
	// stance the foot is .75 m ahead.
	m = Evaluate(d, cfg, g, 0.25)
	if want := home.Add(rig.Vec3{0, 0, 0.75}); dist(m.Legs[FL].Foot, want) > 1e-12 {
		t.Errorf("touch-down foot %v, want %v", m.Legs[FL].Foot, want)
	}
}
