package fbx

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// layeredFile is the small skinned file with layers added to its stack after
// its base layer (which turns the arm 0° → 90° about Z in 1 s); layers and
// their curve nodes are ASCII objects, conns their connections.
func layeredFile(t *testing.T, objects, conns string) string {
	t.Helper()
	b, err := os.ReadFile(writeASCII(t, yUp, true))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "\tAnimationStack:", objects+"\tAnimationStack:", 1)
	src = strings.Replace(src, "\tC: \"OO\",21,20\n", "\tC: \"OO\",21,20\n"+conns, 1)
	p := filepath.Join(t.TempDir(), "layered.fbx")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func layerObj(id, name, props string) string {
	return "\tAnimationLayer: " + id + ", \"AnimLayer::" + name + "\", \"\" {\n\t\tProperties70:  {\n" + props + "\t\t}\n\t}\n"
}

func curveNodeObj(id string, x, y, z string) string {
	return "\tAnimationCurveNode: " + id + ", \"AnimCurveNode::N\", \"\" {\n\t\tProperties70:  {\n\t\t\tP: \"d|X\", \"Number\", \"\", \"A\"," + x + "\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\"," + y + "\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\"," + z + "\n\t\t}\n\t}\n"
}

func prop(name, v string) string {
	return "\t\t\tP: \"" + name + "\", \"enum\", \"\", \"\"," + v + "\n"
}

// The arm's pose at time s of the first clip: its Z angle in degrees and its
// height above the root in metres.
func armPose(t *testing.T, m *gltf.Model, s float64) (angle, height float64) {
	t.Helper()
	pose := append([]rig.Transform(nil), m.Skeleton.Rest...)
	m.Clips[0].SampleAt(s, pose)
	q := pose[1].Rotation
	return 2 * math.Atan2(q[2], q[3]) * 180 / math.Pi, pose[1].Translation[1]
}

// Layers blend in the stack's order (§11), each expected pose worked by hand:
// the base turns the arm to 45° at 0.5 s; an additive layer at weight 50 adds
// half its 40° (65°); an override-passthrough layer at weight 25 takes the
// rotation a quarter of the way to its 0° (48.75°) and the arm's height a
// quarter of the way from 100 cm to its 200 cm (1.25 m); a muted layer that
// would override everything does nothing. At 1 s: (90 + 20) · 0.75 = 82.5°.
// The file is read as ASCII and as the binary formats/fbx writes of it.
func TestLayersBlend(t *testing.T) {
	objects := layerObj("40", "Add", prop("BlendMode", "0")+prop("Weight", "50")+prop("RotationAccumulationMode", "1")) +
		curveNodeObj("41", "0", "0", "40") +
		layerObj("42", "Over", prop("BlendMode", "2")+prop("Weight", "25")) +
		curveNodeObj("43", "0", "0", "0") +
		curveNodeObj("44", "0", "200", "0") +
		layerObj("45", "Muted", prop("BlendMode", "1")+prop("Mute", "1")) +
		curveNodeObj("46", "0", "0", "-500")
	conns := "\tC: \"OO\",40,20\n\tC: \"OO\",41,40\n\tC: \"OP\",41,2, \"Lcl Rotation\"\n" +
		"\tC: \"OO\",42,20\n\tC: \"OO\",43,42\n\tC: \"OP\",43,2, \"Lcl Rotation\"\n\tC: \"OO\",44,42\n\tC: \"OP\",44,2, \"Lcl Translation\"\n" +
		"\tC: \"OO\",45,20\n\tC: \"OO\",46,45\n\tC: \"OP\",46,2, \"Lcl Rotation\"\n"
	ascii := layeredFile(t, objects, conns)
	f, err := fbxfile.Open(ascii)
	if err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(t.TempDir(), "layered-binary.fbx")
	if err := fbxfile.WriteFile(binary, f, false); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{ascii, binary} {
		m, err := Load(path, gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ at, angle, height float64 }{{0.5, 48.75, 1.25}, {1, 82.5, 1.25}, {0, 15, 1.25}} {
			a, h := armPose(t, m, c.at)
			if !near(a, c.angle, 1e-3) || !near(h, c.height, 1e-6) {
				t.Errorf("%s at %v s: arm at %.4f°, %.6f m; want %v°, %v m", filepath.Base(path), c.at, a, h, c.angle, c.height)
			}
		}
		if len(m.Warnings) != 0 {
			t.Errorf("%s: warnings %q", filepath.Base(path), m.Warnings)
		}
	}
}

// What bonebake does not blend as FBX says is refused or warned about, naming
// the layer and the setting: rotations added by layer (quaternion
// accumulation, FBX's default) are added as Euler angles, with a warning; a
// blend mode FBX does not have is refused.
func TestLayerModesNamed(t *testing.T) {
	conns := "\tC: \"OO\",40,20\n\tC: \"OO\",41,40\n\tC: \"OP\",41,2, \"Lcl Rotation\"\n"
	m, err := Load(layeredFile(t, layerObj("40", "Add", prop("Weight", "100"))+curveNodeObj("41", "0", "0", "40"), conns), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(m.Warnings, "\n"); !strings.Contains(w, `"Add"`) || !strings.Contains(w, "RotationAccumulationMode 0") {
		t.Errorf("warnings %q", m.Warnings)
	}
	if a, _ := armPose(t, m, 0.5); !near(a, 85, 1e-3) {
		t.Errorf("arm at %v°, want 45 + 40", a)
	}
	// Read as a clip file (Mixamo's animations without skin), it says so too.
	cf, err := LoadClips(layeredFile(t, layerObj("40", "Add", prop("Weight", "100"))+curveNodeObj("41", "0", "0", "40"), conns), gltf.Options{})
	if err != nil || !strings.Contains(strings.Join(cf.Notes, "\n"), "RotationAccumulationMode 0") {
		t.Errorf("clip file: %v, notes %q", err, cf.Notes)
	}
	_, err = Load(layeredFile(t, layerObj("40", "Odd", prop("BlendMode", "7"))+curveNodeObj("41", "0", "0", "40"), conns), gltf.Options{})
	var fe *Error
	if !errors.As(err, &fe) || fe.Rule != RuleLayer || !strings.Contains(err.Error(), `"Odd"`) || !strings.Contains(err.Error(), "BlendMode 7") {
		t.Errorf("BlendMode 7: %v", err)
	}
}
