package gltfbake

import (
	"fmt"
	"strings"

	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/source/gltf"
)

// morphNotes says what of a model's morph targets a bake leaves out: a BPAT
// file holds bone palettes only, so the targets and their weights channels are
// not baked, and a clip that animates nothing else bakes as a still pose
// (docs/formats/gltf.md §3). Said, so that neither vanishes silently.
func morphNotes(m *gltf.Model) []string {
	var notes []string
	if len(m.Morphs) > 0 {
		var what []string
		for _, mo := range m.Morphs {
			s := fmt.Sprintf("%s has %s (%s)", mo.Name, words.Plural(len(mo.Targets), "morph target"), short(mo.Targets))
			if len(mo.Clips) > 0 {
				s += ", weights animated by " + short(quote(mo.Clips))
			}
			what = append(what, s)
		}
		notes = append(notes, "morph targets are not baked (a BPAT file holds bone palettes only): "+strings.Join(what, "; "))
	}
	if len(m.MorphOnly) > 0 {
		verb := "animate"
		if len(m.MorphOnly) == 1 {
			verb = "animates"
		}
		notes = append(notes, fmt.Sprintf("%s %s only morph target weights (%s), which are not baked: %s as a still pose",
			words.Plural(len(m.MorphOnly), "animation"), verb, short(quote(m.MorphOnly)), map[bool]string{true: "its clip bakes", false: "their clips bake"}[len(m.MorphOnly) == 1]))
	}
	return notes
}

// short joins up to 8 names and counts the rest.
func short(names []string) string {
	if len(names) <= 8 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
}

func quote(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
