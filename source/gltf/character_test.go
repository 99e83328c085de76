package gltf

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/rig"
)

// characters are real characters whose every mesh must come through, with
// their members as read from the files by a separate script (node names,
// skins, the joints rigid parts hang on).
var characters = []struct {
	file     string
	members  int // mesh nodes of the character
	vertices int
	height   [2]float64 // the rest mesh's height, metres, at least and at most
	// bindPose: some skin is bound in a pose other than its rest pose
	// (RobotExpressive's hands), so Mesh's own positions are not the rest mesh.
	bindPose bool
}{
	{"threejs/Xbot.glb", 2, 28374, [2]float64{1.7, 1.85}, false},
	{"threejs/RobotExpressive.glb", 14, 7214, [2]float64{4, 5}, true},
	{"threejs/Soldier.glb", 2, 7434, [2]float64{1.6, 1.9}, false},
	{"mixamo-clips/ybot.glb", 2, 35434, [2]float64{1.7, 1.85}, false},
	{"CesiumMan.gltf", 1, 3273, [2]float64{1.4, 1.6}, false},
	{"Fox.glb", 1, 1728, [2]float64{0, 1000}, false},
	{"RiggedSimple.gltf", 1, 160, [2]float64{0, 100}, false},
	{"SimpleSkin.gltf", 1, 10, [2]float64{0, 100}, false},
}

// TestCharacterMatchesReference checks every vertex of every mesh of the
// character against internal/gltfref, which evaluates the file as the glTF
// spec says with no shared code: at rest Mesh's own positions are where the
// spec puts them (Σ w · G · IBM · v, rigid parts at G(node) · v), and skinned
// with Load's palettes and binds they follow every clip as the spec's do.
func TestCharacterMatchesReference(t *testing.T) {
	for _, tc := range characters {
		t.Run(tc.file, func(t *testing.T) {
			path := modelPath(t, tc.file)
			m, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := gltfref.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, mb := range m.Members {
				t.Logf("%+v", mb)
			}
			for _, w := range m.Warnings {
				t.Log(w)
			}
			t.Logf("%d vertices, %d normalized", m.Mesh.VertexCount(), m.WeightsNormalized)
			if len(m.Members) != tc.members || m.Mesh.VertexCount() != tc.vertices {
				t.Errorf("%d members, %d vertices; want %d, %d", len(m.Members), m.Mesh.VertexCount(), tc.members, tc.vertices)
			}
			if said := strings.Contains(strings.Join(m.Notes, "\n"), "bound in a pose other than its rest pose"); said != tc.bindPose {
				t.Errorf("notes %q: say the bind pose is not the rest pose: %v, want %v", m.Notes, said, tc.bindPose)
			}
			if strings.Contains(strings.Join(m.Warnings, "\n"), "bound in a pose other than its rest pose") {
				t.Errorf("warnings %q: a bind pose that skins exactly is a note, not a warning", m.Warnings)
			}
			if h := matchReference(t, m, ref, tc.bindPose); h < tc.height[0] || h > tc.height[1] {
				t.Errorf("the rest mesh is %.4g tall, want %g to %g", h, tc.height[0], tc.height[1])
			}
		})
	}
}

// skinned is Σ w · palette · InverseBind · position for every vertex of m.
func skinned(m *Model, pal []rig.Mat4) []rig.Vec3 {
	out := make([]rig.Vec3, m.Mesh.VertexCount())
	for v, p := range m.Mesh.Positions {
		pos := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		for k := range 4 {
			if w := float64(m.Mesh.Weights[v][k]); w != 0 {
				j := m.Mesh.Joints[v][k]
				out[v] = out[v].Add(pal[j].Mul(m.InverseBind[j]).TransformPoint(pos).Scale(w))
			}
		}
	}
	return out
}

// TestWeightedJointsEveryMesh: WeightedJoints counts every mesh of the
// character. Xbot's Beta_Joints alone weights 37 joints (not Head, Spine1,
// Spine2, ...); with Beta_Surface 52 are weighted and exactly these 15 are not
// (read from the file's JOINTS_0/WEIGHTS_0 by a separate script).
func TestWeightedJointsEveryMesh(t *testing.T) {
	m, err := Load(modelPath(t, "threejs/Xbot.glb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	unweighted := map[string]bool{}
	for _, n := range []string{"HeadTop_End", "LeftEye", "RightEye", "LeftHandThumb4", "LeftHandIndex4", "LeftHandMiddle4",
		"LeftHandRing4", "LeftHandPinky4", "RightHandPinky4", "RightHandRing4", "RightHandMiddle4", "RightHandIndex4",
		"RightHandThumb4", "LeftToe_End", "RightToe_End"} {
		unweighted["mixamorig:"+n] = true
	}
	for j, w := range m.WeightedJoints() {
		if w == unweighted[m.JointNames[j]] {
			t.Errorf("joint %s: weighted %v", m.JointNames[j], w)
		}
	}

	// A rigid part weights its joint wholly.
	r, err := Load(modelPath(t, "threejs/RobotExpressive.glb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := r.WeightedJoints()
	for _, mb := range r.Members {
		if mb.Skin < 0 && !w[slices.Index(r.JointNames, mb.Joint)] {
			t.Errorf("%s: joint %s is not counted as weighted", mb.How, mb.Joint)
		}
	}
}

// TestInspectCharacter: inspect lists RobotExpressive's character as a separate
// script reads the file: the hand skinned by skin 0, the twelve unskinned mesh
// nodes by the nearest of skin 0's joints above them, and the other hand's
// skin 1, whose 43 joints are skin 0's.
func TestInspectCharacter(t *testing.T) {
	info, err := Inspect(modelPath(t, "threejs/RobotExpressive.glb"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mb := range info.Skins[0].Character {
		got = append(got, mb.Name+": "+mb.How)
	}
	want := []string{"Hand.R: skinned by skin 0"}
	for _, p := range [][2]string{{"Foot.L", "Foot.L"}, {"Torso", "Body"}, {"Head", "Head"}, {"Shoulder.L", "Shoulder.L"},
		{"Arm.L", "UpperArm.L"}, {"Shoulder.R", "Shoulder.R"}, {"Arm.R", "UpperArm.R"}, {"Leg.L", "UpperLeg.L"},
		{"LowerLeg.L", "LowerLeg.L"}, {"Leg.R", "UpperLeg.R"}, {"LowerLeg.R", "LowerLeg.R"}, {"Foot.R", "Foot.R"}} {
		want = append(want, p[0]+": rigid on joint "+p[1])
	}
	want = append(want, "Hand.L: skin 1, on joints of skin 0")
	if !slices.Equal(got, want) {
		t.Errorf("skin 0's character:\n%q\nwant\n%q", got, want)
	}
}

// matchReference requires every vertex of m's character to stand where ref
// (internal/gltfref) puts it at rest (Mesh's own positions too unless a skin is
// bound in another pose) and at a time in every clip, within 1e-4 of the rest
// mesh's height, which it returns.
func matchReference(t *testing.T, m *Model, ref *gltfref.Doc, bindPose bool) float64 {
	t.Helper()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range m.RestPositions() {
		lo, hi = min(lo, float64(p[1])), max(hi, float64(p[1]))
	}
	size := max(hi-lo, 1e-3)
	compare := func(what string, got []rig.Vec3, anim int, tm float64) {
		t.Helper()
		first, worst := 0, 0.0
		for _, mb := range m.Members {
			want, err := ref.Vertices(mb.Node, anim, tm)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != mb.Vertices {
				t.Fatalf("%s: node %d has %d vertices, the reference %d", what, mb.Node, mb.Vertices, len(want))
			}
			for v, w := range want {
				d := got[first+v].Sub(rig.Vec3(w)).Len()
				worst = max(worst, d)
				if d > 1e-4*size {
					t.Fatalf("%s: node %d (%s) vertex %d at %v, the reference at %v", what, mb.Node, mb.How, v, got[first+v], w)
				}
			}
			first += mb.Vertices
		}
		t.Logf("%s: worst %.3g m of %.3g", what, worst, size)
	}
	own := make([]rig.Vec3, m.Mesh.VertexCount())
	for v, p := range m.Mesh.Positions {
		own[v] = rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	if !bindPose {
		compare("positions", own, -1, 0)
	}
	compare("skinned at rest", restSkinned(t, m), -1, 0)
	rest := make([]rig.Vec3, m.Mesh.VertexCount())
	for v, p := range m.RestPositions() {
		rest[v] = rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	compare("RestPositions", rest, -1, 0)
	for ci := range m.Clips {
		c := &m.Clips[ci]
		tm := c.Start + 0.37*(c.Duration-c.Start)
		pose := m.Skeleton.RestPose()
		anim.NewSampler(c).Sample(tm, pose)
		compare(c.Name, skinned(m, palette(t, m, pose)), ci, tm)
	}
	return hi - lo
}

// matrices encodes row-major matrices as glTF's column-major MAT4 floats.
func matrices(ms ...rig.Mat4) []byte {
	var b []byte
	for _, m := range ms {
		for c := range 4 {
			for r := range 4 {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(m[r*4+c])))
			}
		}
	}
	return b
}

// TestSecondSkin: SimpleSkin's mesh drawn a second time by node 3 with skin 1
// over the same joints in the other order. Bound like skin 0 up to one matrix
// (its inverse binds skin 0's times a move of 3 along x), it joins the character
// and every vertex stands and moves where gltfref puts it; bound to one joint in
// another pose than skin 0 is, it is left out with a warning naming the skin
// and the joint.
func TestSecondSkin(t *testing.T) {
	move := rig.Translate(rig.Vec3{3, 0, 0})
	// SimpleSkin's, joints node 1 and node 2: both stand at (0, 1, 0) at rest.
	ibm0 := []rig.Mat4{rig.Translate(rig.Vec3{0, -1, 0}), rig.Translate(rig.Vec3{0, -1, 0})}
	for _, c := range []struct {
		name    string
		ibm     []rig.Mat4 // skin 1's, joints [node 2, node 1]
		members int
		warning string
	}{
		{"bound alike", []rig.Mat4{ibm0[1].Mul(move), ibm0[0].Mul(move)}, 2, ""},
		{"bound otherwise", []rig.Mat4{rig.IdentityMat4(), ibm0[0]}, 1, `skin 1 is bound to joint "node2" in another pose than skin 0 is: its meshes are left out`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := simpleSkin(t)
			acc := addAccessor(d, matrices(c.ibm...), 5126, "MAT4", 2, false)
			appendTo(d, "skins", map[string]any{"joints": []any{2, 1}, "inverseBindMatrices": acc})
			n := appendTo(d, "nodes", map[string]any{"mesh": 0, "skin": 1, "translation": []any{0.0, 0.0, 7.0}}) // ignored, as glTF says
			sc := obj(d, "scenes", 0)
			sc["nodes"] = append(sc["nodes"].([]any), n)
			path := writeModel(t, d)
			m, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Members) != c.members || m.Mesh.VertexCount() != 10*c.members {
				t.Fatalf("%d members, %d vertices; want %d, %d", len(m.Members), m.Mesh.VertexCount(), c.members, 10*c.members)
			}
			if w := strings.Join(m.Warnings, "\n"); c.warning != "" && !strings.Contains(w, c.warning) {
				t.Errorf("warnings %q do not say %q", m.Warnings, c.warning)
			}
			ref, err := gltfref.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			matchReference(t, m, ref, false)
		})
	}
}
