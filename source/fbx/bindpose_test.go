package fbx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// posedSrc is a character whose Arm was written turned away from its bind
// pose (TestBindPoseFromClusters).
const posedSrc = `; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXVersion: 7400
}
GlobalSettings:  {
	Properties70:  {
		P: "UnitScaleFactor", "double", "Number", "",1
	}
}
Objects:  {
	Model: 1, "Model::Root", "LimbNode" {
	}
	Model: 2, "Model::Arm", "LimbNode" {
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
			P: "Lcl Rotation", "Lcl Rotation", "", "A",0,0,90
		}
	}
	Geometry: 10, "Geometry::Tri", "Mesh" {
		Vertices: *9 {
			a: 100,100,0,0,0,0,0,10,0
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		}
	}
	Model: 11, "Model::Body", "Mesh" {
	}
	Deformer: 12, "Deformer::Skin", "Skin" {
	}
	Deformer: 13, "SubDeformer::Cluster Root", "Cluster" {
		Indexes: *3 {
			a: 0,1,2
		}
		Weights: *3 {
			a: 0.5,1,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
	}
	Deformer: 14, "SubDeformer::Cluster Arm", "Cluster" {
		Indexes: *1 {
			a: 0
		}
		Weights: *1 {
			a: 0.5
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,-100,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,100,0,1
		}
	}
	AnimationStack: 20, "AnimStack::Wave", "" {
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
	C: "OO",10,11
	C: "OO",11,0
	C: "OO",12,10
	C: "OO",13,12
	C: "OO",14,12
	C: "OO",1,13
	C: "OO",2,14
	C: "OO",21,20
	C: "OO",22,21
	C: "OP",22,2, "Lcl Rotation"
	C: "OP",23,22, "d|Z"
}
`

// TestBindPoseFromClusters reads a file whose bones were not written in
// their bind pose, as Blender writes them (docs/formats/fbx.md §9, §15): the
// Arm's Lcl Rotation is 90° about Z, its cluster's TransformLink has it
// unturned at (0,100,0). A control point p = (100,100,0) cm, weighted half to
// Root (bound at the origin) and half to Arm, stands by FBX's rule at
// Σ w · G(t) · Transform · p. At 0 s the Wave stack turns the Arm back to 0°,
// the bind pose, so the point stands where it was bound, (1,1,0) m; taking
// the Lcl pose for the bind puts it at (0.5,1,0).
func TestBindPoseFromClusters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "posed.fbx")
	if err := os.WriteFile(path, []byte(posedSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clips) != 1 || m.Mesh == nil {
		t.Fatalf("clips %d, mesh %v", len(m.Clips), m.Mesh)
	}
	pose := append([]rig.Transform(nil), m.Skeleton.Rest...)
	m.Clips[0].SampleAt(0, pose)
	glob := []rig.Mat4{pose[0].Matrix(), pose[0].Matrix().Mul(pose[1].Matrix())}
	// The vertex of control point 0: the one weighted to both bones.
	v := -1
	for i, w := range m.Mesh.Weights {
		if w[1] > 0 {
			v = i
		}
	}
	if v < 0 {
		t.Fatalf("no vertex weighted to two bones: %v", m.Mesh.Weights)
	}
	var p rig.Vec3
	pos := m.Mesh.Positions[v]
	for k := range 2 {
		j, w := int(m.Mesh.Joints[v][k]), float64(m.Mesh.Weights[v][k])
		q := glob[j].Mul(m.InverseBind[j]).TransformPoint(rig.Vec3{float64(pos[0]), float64(pos[1]), float64(pos[2])})
		p = p.Add(q.Scale(w))
	}
	if !near(p[0], 1, 1e-6) || !near(p[1], 1, 1e-6) || !near(p[2], 0, 1e-6) {
		t.Errorf("at 0 s the point bound at (1,1,0) m stands at %v", p)
	}
}

// TestUnweightedStaysWithItsMesh: a control point of a skinned mesh that no
// cluster weights is not deformed (the FBX SDK leaves it as it is), so it
// stands where its mesh model puts it: the Body model 50 cm along z puts
// the point (10,0,0) cm at (0.1,0,0.5) m, not at its coordinates in the mesh.
func TestUnweightedStaysWithItsMesh(t *testing.T) {
	src := strings.Replace(posedSrc, `Vertices: *9 {
			a: 100,100,0,0,0,0,0,10,0
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3`, `Vertices: *12 {
			a: 100,100,0,0,0,0,0,10,0,10,0,0
		}
		PolygonVertexIndex: *6 {
			a: 0,1,-3,1,2,-4`, 1)
	src = strings.Replace(src, `Model: 11, "Model::Body", "Mesh" {
	}`, `Model: 11, "Model::Body", "Mesh" {
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,0,50
		}
	}`, 1)
	if src == posedSrc {
		t.Fatal("the file was not edited")
	}
	path := filepath.Join(t.TempDir(), "unweighted.fbx")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range m.Mesh.Positions {
		if near(float64(p[0]), 0.1, 1e-6) && near(float64(p[1]), 0, 1e-6) && near(float64(p[2]), 0.5, 1e-6) {
			found = true
		}
	}
	if !found {
		t.Errorf("no vertex at (0.1,0,0.5) m: %v", m.Mesh.Positions)
	}
}
