package gltf_test

import (
	"fmt"
	"log"

	"github.com/bonebake/bonebake/source/gltf"
)

// Load a model and list what a baker needs from it. (Not run: it needs a file.)
func ExampleLoad() {
	m, err := gltf.Load("Fox.glb", gltf.Options{Skin: 0})
	if err != nil {
		log.Fatal(err) // a *gltf.Error naming the file and the rule it broke
	}
	fmt.Println(len(m.Joints), "joints;", len(m.Skeleton.Names), "bones; mesh node", m.MeshNode)
	for _, c := range m.Clips {
		fmt.Printf("%s %.2f to %.2f s, %d tracks\n", c.Name, c.Start, c.Duration, len(c.Tracks))
	}
}

// Summarize a file for `bonebake inspect`. (Not run: it needs a file.)
func ExampleInspect() {
	info, err := gltf.Inspect("CesiumMan.gltf")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range info.Skins {
		fmt.Println("skin", s.Index, s.JointCount, "joints")
	}
	for _, a := range info.Animations {
		fmt.Printf("%q %.2f s, %d channels, %d keys\n", a.Name, a.Duration, len(a.Channels), a.Keys)
	}
}
