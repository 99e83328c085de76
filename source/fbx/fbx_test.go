package fbx

import (
	"encoding/base64"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The rotation orders, each checked by hand: XYZ applies X first.
func TestEulerOrder(t *testing.T) {
	y := rig.Vec3{0, 1, 0}
	for _, c := range []struct {
		order string
		want  rig.Vec3
	}{
		{"XYZ", rig.Vec3{0, 0, 1}},  // Rx90: y→z; Rz90 keeps z
		{"ZYX", rig.Vec3{-1, 0, 0}}, // Rz90: y→-x; Rx90 keeps x
	} {
		got := euler([3]float64{90, 0, 90}, c.order).Rotate(y)
		for i := range 3 {
			if !near(got[i], c.want[i], 1e-12) {
				t.Errorf("%s: %v, want %v", c.order, got, c.want)
				break
			}
		}
	}
}

// asciiModel is an ASCII FBX 7.4 model whose Properties70 are props.
func modelWith(props string) *model {
	src := "; FBX 7.4.0 project file\nObjects: {\n Model: 1, \"Model::B\", \"LimbNode\" {\n  Properties70: {\n" + props + "  }\n }\n}\n"
	f, err := fbxfile.Parse([]byte(src))
	if err != nil {
		panic(err)
	}
	sc, _ := f.Scene()
	o := sc.ByID[1]
	return &model{obj: o, props: o.Props}
}

// The full transform rule on a hand-computed case: a rotation about a pivot,
// after a pre-rotation, with a rotation offset and a scaling pivot.
func TestTransformRule(t *testing.T) {
	m := modelWith(`   P: "Lcl Translation", "Lcl Translation", "", "A",10,0,0
   P: "Lcl Rotation", "Lcl Rotation", "", "A",0,0,90
   P: "RotationPivot", "Vector3D", "Vector", "",1,0,0
   P: "RotationOffset", "Vector3D", "Vector", "",0,0,5
   P: "PreRotation", "Vector3D", "Vector", "",90,0,0
   P: "ScalingPivot", "Vector3D", "Vector", "",0,1,0
   P: "Lcl Scaling", "Lcl Scaling", "", "A",2,2,2
`)
	l := m.local(m.static())
	// The origin: Sp·S·Sp⁻¹ takes it to Sp - 2·Sp = (0,-1,0); Rp⁻¹ to (-1,-1,0);
	// Rpre·R = Rx90·Rz90 takes (-1,-1,0) by Rz90 to (1,-1,0), by Rx90 to (1,0,-1);
	// Rp to (2,0,-1); Roff to (2,0,4); T to (12,0,4).
	want := rig.Vec3{12, 0, 4}
	for i := range 3 {
		if !near(l.Translation[i], want[i], 1e-9) {
			t.Fatalf("translation %v, want %v", l.Translation, want)
		}
	}
	// The rotation is Rpre·R: the y axis goes by Rz90 to -x, which Rx90 keeps.
	if v := l.Rotation.Rotate(rig.Vec3{0, 1, 0}); !near(v[0], -1, 1e-12) {
		t.Errorf("rotation takes y to %v, want -x", v)
	}
}

// writeASCII writes a small ASCII FBX character: two bones, a triangle skinned
// to the second, a stack rotating it, in the axes and unit given.
func writeASCII(t testing.TB, globals string, withSkin bool) string {
	t.Helper()
	skin := ""
	skinConn := ""
	if withSkin {
		skin = `	Geometry: 10, "Geometry::Tri", "Mesh" {
		Vertices: *9 {
			a: 0,100,0,100,100,0,0,200,0
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		}
	}
	Model: 11, "Model::Body", "Mesh" {
	}
	Deformer: 12, "Deformer::Skin", "Skin" {
	}
	Deformer: 13, "SubDeformer::Cluster Arm", "Cluster" {
		Indexes: *3 {
			a: 0,1,2
		}
		Weights: *3 {
			a: 1,1,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,-100,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,100,0,1
		}
	}
`
		skinConn = `	C: "OO",10,11
	C: "OO",11,0
	C: "OO",12,10
	C: "OO",13,12
	C: "OO",2,13
`
	}
	src := `; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXVersion: 7400
}
GlobalSettings:  {
	Properties70:  {
` + globals + `	}
}
Objects:  {
	Model: 1, "Model::Root", "LimbNode" {
	}
	Model: 2, "Model::Arm", "LimbNode" {
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
		}
	}
` + skin + `	AnimationStack: 20, "AnimStack::Wave", "" {
	}
	AnimationLayer: 21, "AnimLayer::Base", "" {
	}
	AnimationCurveNode: 22, "AnimCurveNode::R", "" {
		Properties70:  {
			P: "d|X", "Number", "", "A",0
			P: "d|Y", "Number", "", "A",0
			P: "d|Z", "Number", "", "A",0
		}
	}
	AnimationCurve: 23, "AnimCurve::", "" {
		KeyTime: *2 {
			a: 0,46186158000
		}
		KeyValueFloat: *2 {
			a: 0,90
		}
	}
}
Connections:  {
	C: "OO",1,0
	C: "OO",2,1
` + skinConn + `	C: "OO",21,20
	C: "OO",22,21
	C: "OP",22,2, "Lcl Rotation"
	C: "OP",23,22, "d|Z"
}
`
	p := filepath.Join(t.TempDir(), "tiny.fbx")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const yUp = `		P: "UnitScaleFactor", "double", "Number", "",1
`

// A Z-up file in metres (3ds Max's axes: up Z, front -Y): converted to +Y
// up, its bones and mesh stand as a Y-up file in centimetres does.
const zUpMetres = `		P: "UpAxis", "int", "Integer", "",2
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",1
		P: "FrontAxisSign", "int", "Integer", "",-1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",100
`

func TestASCIICharacter(t *testing.T) {
	m, err := Load(writeASCII(t, yUp, true), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Skeleton.Names, ","); got != "Root,Arm" {
		t.Fatalf("bones %s", got)
	}
	// Centimetres to metres: the arm 1 m above the root.
	if tr := m.Skeleton.Rest[1].Translation; !near(tr[1], 1, 1e-12) {
		t.Errorf("arm at %v, want y 1", tr)
	}
	// The triangle's corners (cm) at 1 m, and 2 m up.
	want := [][3]float32{{0, 1, 0}, {1, 1, 0}, {0, 2, 0}}
	if m.Mesh == nil || m.Mesh.VertexCount() != 3 || m.Mesh.TriangleCount() != 1 {
		t.Fatalf("mesh %+v", m.Mesh)
	}
	for i, p := range m.Mesh.Positions {
		for k := range 3 {
			if !near(float64(p[k]), float64(want[i][k]), 1e-6) {
				t.Errorf("vertex %d at %v, want %v", i, p, want[i])
			}
		}
	}
	if len(m.Clips) != 1 || m.Clips[0].Name != "Wave" || m.Clips[0].Duration != 1 {
		t.Fatalf("clips %+v", m.Clips)
	}
	// At 1 s the arm has turned 90° about Z: the vertex 1 m along x from it
	// goes 1 m up: palette · inverse bind · (1,1,0) = (0,2,0).
	pose := append([]rig.Transform(nil), m.Skeleton.Rest...)
	m.Clips[0].SampleAt(1, pose)
	g := rig.IdentityMat4()
	for b := 1; b >= 0; b-- {
		g = pose[b].Matrix().Mul(g)
	}
	p := g.Mul(m.InverseBind[1]).TransformPoint(rig.Vec3{1, 1, 0})
	if !near(p[0], 0, 1e-5) || !near(p[1], 2, 1e-5) {
		t.Errorf("vertex at 1 s: %v, want (0,2,0)", p)
	}

	z, err := Load(writeASCII(t, zUpMetres, true), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The same file read as Z-up metres: the arm is 100 m along the file's
	// y, which is bonebake's -z (front is -Y).
	arm := z.Skeleton.Rest[0].Rotation.Rotate(z.Skeleton.Rest[1].Translation)
	if !near(arm[2], -100, 1e-9) || !near(arm[1], 0, 1e-9) {
		t.Errorf("Z-up arm at %v, want (0, 0, -100)", arm)
	}
}

func TestRefusals(t *testing.T) {
	_, err := Load(writeASCII(t, yUp, false), gltf.Options{})
	var fe *Error
	if !errors.As(err, &fe) || fe.Rule != RuleSkin || !strings.Contains(err.Error(), "tiny.fbx") {
		t.Errorf("no skin: %v", err)
	}
	// The same skinless file is a clip file.
	cf, err := LoadClips(writeASCII(t, yUp, false), gltf.Options{})
	if err != nil || len(cf.Animations) != 1 || cf.Nodes[1].Name != "Arm" {
		t.Fatalf("clip file: %v %+v", err, cf)
	}
	left := strings.Replace(yUp, "UnitScaleFactor", "UnitScaleFactor", 1) + "\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",-1\n"
	if _, err := Load(writeASCII(t, left, true), gltf.Options{}); !errors.As(err, &fe) || fe.Rule != RuleAxes {
		t.Errorf("left-handed axes: %v", err)
	}
	noKeys := strings.Replace(strings.Replace(writeASCIIText(t), "a: 0,46186158000", "a: ", 1), "a: 0,90", "a: ", 1)
	noKeys = strings.ReplaceAll(noKeys, "KeyTime: *2", "KeyTime: *0")
	noKeys = strings.ReplaceAll(noKeys, "KeyValueFloat: *2", "KeyValueFloat: *0")
	p := filepath.Join(t.TempDir(), "nokeys.fbx")
	os.WriteFile(p, []byte(noKeys), 0o644)
	if _, err := LoadClips(p, gltf.Options{}); !errors.As(err, &fe) || fe.Rule != RuleClipFile || !strings.Contains(err.Error(), "Wave") {
		t.Errorf("a take with no keys: %v", err)
	}
	old := filepath.Join(t.TempDir(), "old.fbx")
	os.WriteFile(old, []byte("; FBX 6.1.0 project file\n"), 0o644)
	if _, err := Load(old, gltf.Options{}); err == nil || !strings.Contains(err.Error(), "FBX 6.1") {
		t.Errorf("FBX 6: %v", err)
	}
}

func writeASCIIText(t testing.TB) string {
	b, err := os.ReadFile(writeASCII(t, yUp, false))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The Mixamo files: upright, in metres, every stack with keys a clip as long
// as the file's own Takes node says.
func TestMixamo(t *testing.T) {
	for _, name := range []string{"mixamo.fbx", "Samba_Dancing.fbx"} {
		path := testfiles.Path(t, "fbx", name)
		m, err := Load(path, gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Skeleton.Names) != 65 || m.Skeleton.Names[0] != "mixamorig:Hips" {
			t.Errorf("%s: %d bones from %s", name, len(m.Skeleton.Names), m.Skeleton.Names[0])
		}
		lo, hi := [3]float32{1e9, 1e9, 1e9}, [3]float32{-1e9, -1e9, -1e9}
		for _, p := range m.Mesh.Positions {
			for i := range 3 {
				lo[i], hi[i] = min(lo[i], p[i]), max(hi[i], p[i])
			}
		}
		// Mixamo's Y Bot stands about 1.8 m tall, feet on the ground, facing +z.
		if h := hi[1] - lo[1]; h < 1.7 || h > 1.9 || math.Abs(float64(lo[1])) > 0.02 || hi[0]-lo[0] < hi[2]-lo[2] {
			t.Errorf("%s: mesh spans %v to %v: not upright in metres", name, lo, hi)
		}
		f, _ := fbxfile.Open(path)
		var stop int64
		for _, tk := range f.Top("Takes").Children {
			if tk.Name == "Take" && tk.Props[0].String == "mixamo.com" {
				stop = tk.Child("LocalTime").Props[1].Int
			}
		}
		if len(m.Clips) != 1 || m.Clips[0].Name != "mixamo.com" || !near(m.Clips[0].Duration, float64(stop)/TicksPerSecond, 1e-3) {
			t.Errorf("%s: clips %v, want mixamo.com to %v s", name, m.Clips, float64(stop)/TicksPerSecond)
		}
		// Every joint's inverse bind undoes its rest pose.
		if len(m.InverseBind) != len(m.Joints) || m.Mesh.VertexCount() == 0 {
			t.Fatalf("%s: %d inverse binds for %d joints", name, len(m.InverseBind), len(m.Joints))
		}
	}
}

// A key off the frame-rate grid is a sample too: the clip is exact at every
// key (here 45° at 0.55 s, between 30 fps frames 16 and 17, where the grid
// alone would give 45.2°).
func TestKeysOffTheGrid(t *testing.T) {
	src := writeASCIIText(t)
	for old, new := range map[string]string{
		"KeyTime: *2":       "KeyTime: *3",
		"a: 0,46186158000":  "a: 0,25402386900,46186158000",
		"KeyValueFloat: *2": "KeyValueFloat: *3",
		"a: 0,90":           "a: 0,45,90",
	} {
		if !strings.Contains(src, old) {
			t.Fatalf("no %q", old)
		}
		src = strings.Replace(src, old, new, 1)
	}
	p := filepath.Join(t.TempDir(), "offgrid.fbx")
	os.WriteFile(p, []byte(src), 0o644)
	cf, err := LoadClips(p, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pose := make([]rig.Transform, len(cf.Nodes))
	for i, n := range cf.Nodes {
		pose[i] = n.Rest
	}
	cf.Animations[0].SampleAt(0.55, pose)
	q := pose[1].Rotation
	if angle := 2 * math.Atan2(q[2], q[3]) * 180 / math.Pi; !near(angle, 45, 1e-3) {
		t.Errorf("at 0.55 s the arm has turned %v°, want 45", angle)
	}
}

// A material's diffuse colour and its embedded texture (an ASCII file's
// base64 Content, in two strings after FBX's empty first value) make the
// part's material.
func TestMaterialTexture(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRtest")
	enc := base64.StdEncoding.EncodeToString(png)
	skinned, err := os.ReadFile(writeASCII(t, yUp, true))
	if err != nil {
		t.Fatal(err)
	}
	src := string(skinned)
	src = strings.Replace(src, "\t\tPolygonVertexIndex: *3 {", "\t\tLayerElementMaterial: 0 {\n\t\t\tMappingInformationType: \"AllSame\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n\t\t\tMaterials: *1 {\n\t\t\t\ta: 0\n\t\t\t}\n\t\t}\n\t\tPolygonVertexIndex: *3 {", 1)
	src = strings.Replace(src, "\tAnimationStack:", `	Material: 30, "Material::Skin", "" {
		Properties70:  {
			P: "DiffuseColor", "Color", "", "A",0.5,0.5,0.5
		}
	}
	Texture: 31, "Texture::Skin", "" {
	}
	Video: 32, "Video::Skin", "Clip" {
		Content: , 
			"`+enc[:8]+`",
			"`+enc[8:]+`"
	}
	AnimationStack:`, 1)
	src = strings.Replace(src, "Connections:  {\n", "Connections:  {\n\tC: \"OO\",30,11\n\tC: \"OP\",31,30, \"DiffuseColor\"\n\tC: \"OO\",32,31\n", 1)
	p := filepath.Join(t.TempDir(), "textured.fbx")
	os.WriteFile(p, []byte(src), 0o644)
	m, err := Load(p, gltf.Options{Textures: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) != 1 {
		t.Fatalf("%d parts", len(m.Parts))
	}
	mat := m.Parts[0].Material
	// sRGB 0.5 is linear ((0.5+0.055)/1.055)^2.4 = 0.2140.
	if mat.Name != "Skin" || !near(float64(mat.BaseColor[0]), 0.2140, 1e-4) || mat.BaseColor[3] != 1 {
		t.Errorf("material %+v", mat)
	}
	if mat.Texture == nil || mat.Texture.MIME != "image/png" || string(mat.Texture.Data) != string(png) {
		t.Errorf("texture %+v", mat.Texture)
	}
}

// The Mixamo character written as ASCII FBX and as 32-bit binary 7.4 loads to
// the same character as the original: the same vertices, bones and keys.
func TestMixamoAsASCIIAndV74(t *testing.T) {
	path := testfiles.Path(t, "fbx", "mixamo.fbx")
	want, err := Load(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fbxfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ascii := range []bool{true, false} {
		g := *f
		g.Version = 7400
		out := filepath.Join(t.TempDir(), "copy.fbx")
		if err := fbxfile.WriteFile(out, &g, ascii); err != nil {
			t.Fatal(err)
		}
		got, err := Load(out, gltf.Options{})
		if err != nil {
			t.Fatalf("ascii %v: %v", ascii, err)
		}
		if !slices.Equal(got.Skeleton.Names, want.Skeleton.Names) || !slices.Equal(got.Skeleton.Rest, want.Skeleton.Rest) {
			t.Errorf("ascii %v: the skeleton differs", ascii)
		}
		if !slices.Equal(got.Mesh.Positions, want.Mesh.Positions) || !slices.Equal(got.Mesh.Indices, want.Mesh.Indices) || !slices.Equal(got.Mesh.UVs, want.Mesh.UVs) {
			t.Errorf("ascii %v: the mesh differs", ascii)
		}
		if len(got.Clips) != 1 || !slices.Equal(got.Clips[0].Tracks[5].Values, want.Clips[0].Tracks[5].Values) {
			t.Errorf("ascii %v: the clip differs", ascii)
		}
	}
}

// A UV layer that cannot be read (a mapping FBX meshes do not use for UVs,
// here "ByEdge") is left out with a warning; the skinned mesh still loads.
func TestUnreadableLayerLeftOut(t *testing.T) {
	b, err := os.ReadFile(writeASCII(t, yUp, true))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "\t\tPolygonVertexIndex: *3 {", "\t\tLayerElementUV: 0 {\n\t\t\tMappingInformationType: \"ByEdge\"\n\t\t\tReferenceInformationType: \"Direct\"\n\t\t\tUV: *2 {\n\t\t\t\ta: 0.5,0.5\n\t\t\t}\n\t\t}\n\t\tPolygonVertexIndex: *3 {", 1)
	p := filepath.Join(t.TempDir(), "byedge.fbx")
	os.WriteFile(p, []byte(src), 0o644)
	m, err := Load(p, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Mesh.VertexCount() != 3 || len(m.Warnings) == 0 || !strings.Contains(strings.Join(m.Warnings, "\n"), "ByEdge") {
		t.Errorf("vertices %d, warnings %q", m.Mesh.VertexCount(), m.Warnings)
	}
}

// InheritType 2 (Rrs): a child of a parent scaled 2× stands where the
// parent's scale puts it (its position follows the parent's whole transform)
// but is not scaled itself.
func TestInheritRrs(t *testing.T) {
	b, err := os.ReadFile(writeASCII(t, yUp, false))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), `	Model: 1, "Model::Root", "LimbNode" {
	}`, `	Model: 1, "Model::Root", "LimbNode" {
		Properties70:  {
			P: "Lcl Scaling", "Lcl Scaling", "", "A",2,2,2
		}
	}`, 1)
	src = strings.Replace(src, `			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
		}`, `			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
			P: "InheritType", "enum", "", "",2
		}`, 1)
	p := filepath.Join(t.TempDir(), "rrs.fbx")
	os.WriteFile(p, []byte(src), 0o644)
	cf, err := LoadClips(p, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := cf.RestGlobal(1)
	// 1 m (100 cm) up, doubled by the root's scale; the arm itself at scale 1.
	if pos := g.Translation(); !near(pos[1], 2, 1e-9) {
		t.Errorf("arm at %v, want y 2", pos)
	}
	if sx := math.Sqrt(g[0]*g[0] + g[4]*g[4] + g[8]*g[8]); !near(sx, 1, 1e-9) {
		t.Errorf("arm's global scale %v, want 1", sx)
	}
}

// A child that does not inherit its parent's scale (Rrs) is sampled when the
// parent's scale is animated, though it has no keys of its own: at 1 s, the
// root scaled 2×, the arm stands 2 m up at scale 1.
func TestInheritRrsAnimated(t *testing.T) {
	b, err := os.ReadFile(writeASCII(t, yUp, false))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), `			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
		}`, `			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
			P: "InheritType", "enum", "", "",2
		}`, 1)
	// The curve node scales the root, all three axes by the one curve.
	src = strings.Replace(src, `	C: "OP",22,2, "Lcl Rotation"
	C: "OP",23,22, "d|Z"`, `	C: "OP",22,1, "Lcl Scaling"
	C: "OP",23,22, "d|X"
	C: "OP",23,22, "d|Y"
	C: "OP",23,22, "d|Z"`, 1)
	src = strings.Replace(src, "a: 0,90", "a: 1,2", 1)
	p := filepath.Join(t.TempDir(), "rrs-anim.fbx")
	os.WriteFile(p, []byte(src), 0o644)
	cf, err := LoadClips(p, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pose := make([]rig.Transform, len(cf.Nodes))
	for i, n := range cf.Nodes {
		pose[i] = n.Rest
	}
	cf.Animations[0].SampleAt(1, pose)
	g := pose[0].Matrix().Mul(pose[1].Matrix())
	if pos := g.Translation(); !near(pos[1], 2, 1e-6) {
		t.Errorf("arm at %v, want y 2", pos)
	}
	if sx := math.Sqrt(g[0]*g[0] + g[4]*g[4] + g[8]*g[8]); !near(sx, 1, 1e-6) {
		t.Errorf("arm's global scale %v, want 1", sx)
	}
}
