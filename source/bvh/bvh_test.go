package bvh

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// biped writes a T-posed biped along axes: up is the unit vector the spine
// follows, side the arms'; lengths times unit. Its height is 1.8 × unit.
func biped(t *testing.T, up, side [3]float64, unit float64) string {
	t.Helper()
	v := func(u, s float64) string {
		return fmt.Sprintf("%g %g %g", (u*up[0]+s*side[0])*unit, (u*up[1]+s*side[1])*unit, (u*up[2]+s*side[2])*unit)
	}
	joint := func(name, off, inner string) string {
		return fmt.Sprintf("JOINT %s\n{\nOFFSET %s\nCHANNELS 3 Zrotation Xrotation Yrotation\n%s}\n", name, off, inner)
	}
	end := func(off string) string { return "End Site\n{\nOFFSET " + off + "\n}\n" }
	leg := func(s float64, n string) string {
		return joint("thigh"+n, v(0, s*0.1), joint("shin"+n, v(-0.45, 0), joint("foot"+n, v(-0.45, 0), end(v(-0.1, 0)))))
	}
	arm := func(s float64, n string) string {
		return joint("arm"+n, v(0.05, s*0.2), joint("hand"+n, v(0, s*0.5), end(v(0, s*0.1))))
	}
	text := "HIERARCHY\nROOT hips\n{\nOFFSET " + v(1, 0) + "\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n" +
		joint("spine", v(0.3, 0), joint("chest", v(0.3, 0), arm(1, "L")+arm(-1, "R")+joint("head", v(0.1, 0), end(v(0.1, 0))))) +
		leg(1, "L") + leg(-1, "R") + "}\nMOTION\nFrames: 1\nFrame Time: 0.04\n" + strings.TrimSpace(strings.Repeat("0 ", 6+3*13)) + "\n"
	p := filepath.Join(t.TempDir(), "biped.bvh")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUpOfARootOnTheGround: a game rig's root stands on the ground with IK
// feet and pole targets beside the body (the three.js robot, as Blender's BVH
// exporter writes it), so the bones below the first branch, summed, point up
// and forward, not down. The feet, named so, stand the body up: +Y here, where
// the sum alone said -Y.
func TestUpOfARootOnTheGround(t *testing.T) {
	joint := func(name, off, inner string) string {
		return fmt.Sprintf("JOINT %s\n{\nOFFSET %s\nCHANNELS 3 Zrotation Xrotation Yrotation\n%s}\n", name, off, inner)
	}
	end := func(off string) string { return "End Site\n{\nOFFSET " + off + "\n}\n" }
	text := "HIERARCHY\nROOT Root\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n" +
		joint("Foot.L", "0.1 0.05 0", end("0 -0.05 0.1")) + joint("Foot.R", "-0.1 0.05 0", end("0 -0.05 0.1")) +
		joint("PoleTarget.L", "0.1 0.5 0.5", end("0 0 0.4")) + joint("PoleTarget.R", "-0.1 0.5 0.5", end("0 0 0.4")) +
		joint("Body", "0 0.5 0", joint("Head", "0 0.5 0", end("0 0.3 0"))) +
		"}\nMOTION\nFrames: 1\nFrame Time: 0.04\n" + strings.TrimSpace(strings.Repeat("0 ", 6+3*6)) + "\n"
	p := filepath.Join(t.TempDir(), "robot.bvh")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sp.Up != "+Y" || !sp.UpFound {
		t.Fatalf("up %s, found %v: want +Y, found", sp.Up, sp.UpFound)
	}
}

func TestUpAndUnits(t *testing.T) {
	for _, c := range []struct {
		up, side [3]float64
		unit     float64
		wantUp   string
		units    string
		scale    float64
	}{
		{[3]float64{0, 1, 0}, [3]float64{1, 0, 0}, 1, "+Y", "metres", 1},
		{[3]float64{0, 0, 1}, [3]float64{1, 0, 0}, 100, "+Z", "centimetres", 0.01},
		{[3]float64{0, -1, 0}, [3]float64{0, 0, 1}, 1000, "-Y", "millimetres", 0.001},
		{[3]float64{-1, 0, 0}, [3]float64{0, 1, 0}, 1, "-X", "metres", 1},
		{[3]float64{0, 0, -1}, [3]float64{0, 1, 0}, 10, "-Z", "unknown", 1},
	} {
		sp, err := Read(biped(t, c.up, c.side, c.unit), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sp.Up != c.wantUp || !sp.UpFound || sp.Units != c.units || sp.Scale != c.scale {
			t.Fatalf("up %v ×%g: got %s %s ×%g", c.up, c.unit, sp.Up, sp.Units, sp.Scale)
		}
		// The turn takes the file's up to +Y.
		if got := sp.Turn.Rotate(rig.Vec3(c.up)); got.Sub(rig.Vec3{0, 1, 0}).Len() > 1e-12 {
			t.Fatalf("up %v turns to %v", c.up, got)
		}
		if h := sp.Height / c.unit; h < 1.8-1e-9 || h > 1.8+1e-9 {
			t.Fatalf("height %g for 1.8 × %g", sp.Height, c.unit)
		}
		if (c.units == "unknown") != (len(sp.Notes) == 1) {
			t.Fatalf("notes %q", sp.Notes)
		}
	}
	// Given, the axis and scale are taken as they are.
	sp, err := Read(biped(t, [3]float64{0, 1, 0}, [3]float64{1, 0, 0}, 1), Options{Up: "z", Scale: 2})
	if err != nil || sp.Up != "+Z" || sp.UpFound || sp.Scale != 2 || sp.Units != "given" {
		t.Fatalf("%+v %v", sp, err)
	}
	if CheckUp("-y") != nil || CheckUp("W") == nil || CheckUp("") == nil {
		t.Fatal("CheckUp")
	}
}
