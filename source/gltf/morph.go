package gltf

import (
	"fmt"
	"strings"

	qgltf "github.com/qmuntal/gltf"
)

// Morph is a mesh of the character with morph targets (blend shapes): a BPAT
// file holds bone palettes only, so they are not baked, and bake says so
// (docs/formats/gltf.md §3).
type Morph struct {
	Node int    `json:"node"`
	Name string `json:"name"` // the node's name
	Mesh int    `json:"mesh"`
	// Targets names the mesh's targets: the mesh's extras.targetNames (the
	// convention of Blender's exporter and three.js), else "target<N>".
	Targets []string `json:"targets"`
	// Clips names the animations that animate the node's weights.
	Clips []string `json:"clips,omitempty"`
}

// morphTargets returns the names of mesh mi's morph targets (none: nil). The
// primitives of a mesh share its targets (glTF requires as many in each).
func (d *document) morphTargets(mi int) []string {
	if mi < 0 || mi >= len(d.doc.Meshes) {
		return nil
	}
	m := d.doc.Meshes[mi]
	n := 0
	for _, p := range m.Primitives {
		n = max(n, len(p.Targets))
	}
	if n == 0 {
		return nil
	}
	names := make([]string, n)
	given, _ := m.Extras.(map[string]any)
	list, _ := given["targetNames"].([]any)
	for i := range names {
		names[i] = fmt.Sprintf("target%d", i)
		if i < len(list) {
			if s, ok := list[i].(string); ok && s != "" {
				names[i] = s
			}
		}
	}
	return names
}

// weightClips returns the names (as Load names them) of the animations with a
// weights channel on node n.
func (d *document) weightClips(n int) []string {
	var out []string
	for ai, a := range d.doc.Animations {
		for _, ch := range a.Channels {
			if ch.Target.Node != nil && *ch.Target.Node == n && ch.Target.Path == qgltf.TRSWeights {
				out = append(out, animationName(ai, a.Name))
				break
			}
		}
	}
	return out
}

// animationName is the name Load gives animation ai.
func animationName(ai int, name string) string {
	if name == "" {
		return fmt.Sprintf("animation_%d", ai)
	}
	return name
}

// morphs lists the members whose mesh has morph targets, and the animations
// that animate weights but move no bone of the skeleton (in the skeleton:
// bone[node] ≥ 0): they bake as a still pose.
func (d *document) morphs(members []Member, bone []int) (ms []Morph, morphOnly []string) {
	for _, mb := range members {
		if t := d.morphTargets(mb.Mesh); t != nil {
			ms = append(ms, Morph{Node: mb.Node, Name: mb.Name, Mesh: mb.Mesh, Targets: t, Clips: d.weightClips(mb.Node)})
		}
	}
	for ai, a := range d.doc.Animations {
		weights, moves := false, false
		for _, ch := range a.Channels {
			if ch.Target.Node == nil || *ch.Target.Node < 0 || *ch.Target.Node >= len(bone) {
				continue
			}
			if ch.Target.Path == qgltf.TRSWeights {
				weights = true
			} else if bone[*ch.Target.Node] >= 0 {
				moves = true
			}
		}
		if weights && !moves {
			morphOnly = append(morphOnly, animationName(ai, a.Name))
		}
	}
	return ms, morphOnly
}

// noSkins is the error for a file without skins: when its animations animate
// morph target weights, it says the model is animated by morph targets, which
// a bone palette cannot hold, rather than only that a skin is missing.
func (d *document) noSkins() error {
	var what []string
	for ni, n := range d.doc.Nodes {
		if n.Mesh == nil {
			continue
		}
		t := d.morphTargets(*n.Mesh)
		clips := d.weightClips(ni)
		if t == nil || clips == nil {
			continue
		}
		what = append(what, fmt.Sprintf("%s: %s (%s), animated by %s", label("node", ni, n.Name), count(len(t), "morph target"),
			listed(t, 4), listed(quoted(clips), 4)))
	}
	if what == nil && len(d.doc.Animations) > 0 {
		// Mixamo's "without skin" downloads: clips for a character.
		return d.fail(RuleSkinIndex, "the file has no skins, only %s: an animation-only file gives clips to a character with gltfbake.Settings.ClipFiles",
			count(len(d.doc.Animations), "animation"))
	}
	if what == nil {
		return d.fail(RuleSkinIndex, "the file has no skins")
	}
	return d.fail(RuleSkinIndex, "the file has no skins: it is animated by morph targets only (%s), and a BPAT file holds bone palettes: bonebake bakes skinned models",
		strings.Join(what, "; "))
}

// listed joins up to n items and says how many more there are.
func listed(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
