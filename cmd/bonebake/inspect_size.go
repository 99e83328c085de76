package main

import (
	"fmt"
	"io"
	"math"

	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// sizeReport is a model's size as bake takes it (its manifest's scale, if it
// has one; no flags), in inspect's report: the box its summary line measures
// and the hint it prints when that looks like centimetres. Both are absent
// where bake would not load the model (an animation-only FBX file, a glTF file
// without a skin), which the rest of the report says.
type sizeReport struct {
	// RestBounds is the low and high corner of the model at rest, in metres,
	// as the viewer's rest_bounds.
	RestBounds *[2][3]float64 `json:"rest_bounds,omitempty"`
	Hint       string         `json:"hint,omitempty"`
	size       gltfbake.Size
}

// measureModel loads the model at path as bake does and measures it.
func measureModel(path string) sizeReport {
	m, err := gltfbake.Load(path, gltfbake.Settings{})
	if err != nil {
		return sizeReport{}
	}
	s := m.Size()
	for k := range 3 {
		if math.IsInf(s.Lo[k], 0) || math.IsNaN(s.Lo[k]) || math.IsInf(s.Hi[k], 0) || math.IsNaN(s.Hi[k]) {
			return sizeReport{} // no point to measure
		}
	}
	return sizeReport{RestBounds: &[2][3]float64{[3]float64(s.Lo), [3]float64(s.Hi)}, Hint: flagWords(s.Hint()), size: s}
}

// print writes the size line and the hint, as bake's summary and hint say them.
func (r sizeReport) print(w io.Writer) {
	if r.RestBounds == nil {
		return
	}
	fmt.Fprintf(w, "size at rest, as bake takes it: %s\n", r.size)
	if r.Hint != "" {
		fmt.Fprintln(w, "hint:", r.Hint)
	}
}
