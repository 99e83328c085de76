// The clips' names (docs/formats/gltf.md §3): an exporter's generic and take
// names told apart, and the names a model's own clips take (OwnClipNames).

package gltfbake

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/source/gltf"
)

// genericNames are the names exporters give an animation nobody named: Mixamo's
// "mixamo.com", FBX's "Take 001", Blender's "Armature|<action>" (the armature
// object's name before the action's: "Armature|mixamo.com|Layer0" for a Mixamo
// file it imported), and "animation_<N>" as Load names an unnamed one. Group 1
// is the take names, the same for every file an exporter writes. Compiled on
// first use: only models with animations need it, and compiling it at
// start-up cost every command of the binary.
var genericNames = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:((armature\|)?(mixamo\.com|(default )?take ?\d*)(\|layer ?\d+)?)|armature\|.*|animation_?\d+)$`)
})

// genericClipName reports whether an animation's name says nothing of it.
func genericClipName(name string) bool {
	return strings.TrimSpace(name) == "" || genericNames().MatchString(strings.TrimSpace(name))
}

// takeName reports whether a name is an exporter's take name, the one it gives
// every file's animation whatever it shows (Mixamo's "mixamo.com"). Of a
// model's own animations only these give way to its file's name: Blender's
// "Armature|Walk" and "Armature|Run" of one file still say which is which.
func takeName(name string) bool {
	g := genericNames().FindStringSubmatch(strings.TrimSpace(name))
	return g != nil && g[1] != ""
}

// OwnClipNames is the name bake gives each of a model's own animations, named
// names in the file at path (unnamed ones already animation_<N>, as Load names
// them): an exporter's take name gives way to the model's file name, so that
// Mixamo characters baked from several files are not all "mixamo.com", and a
// name already taken gets _2, _3, … (docs/formats/gltf.md §3). inspect shows
// them beside the file's own.
func OwnClipNames(path string, names []string) []string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	keep := map[string]bool{} // names the first clip of each keeps
	for _, n := range names {
		if !takeName(n) {
			keep[n] = true
		}
	}
	out := make([]string, len(names))
	given := make(map[string]bool, len(names))
	for i, n := range names {
		stem := n
		if takeName(n) {
			stem = base
		} else if !given[stem] {
			given[stem], out[i] = true, n
			continue
		}
		name := stem
		for k := 2; given[name] || name != n && keep[name]; k++ {
			name = fmt.Sprintf("%s_%d", stem, k)
		}
		given[name], out[i] = true, name
	}
	return out
}

// nameOwnClips names a model's own animations (OwnClipNames). It returns the
// new name of each take name, which a manifest's source may still give, and a
// note per clip renamed.
func nameOwnClips(m *gltf.Model, path string) (renamed map[string]string, notes []string) {
	names := make([]string, len(m.Clips))
	for i, c := range m.Clips {
		names[i] = c.Name
	}
	for i, name := range OwnClipNames(path, names) {
		c := &m.Clips[i]
		if takeName(c.Name) {
			if renamed == nil {
				renamed = map[string]string{}
			}
			if _, ok := renamed[c.Name]; !ok {
				renamed[c.Name] = name
			}
			notes = append(notes, fmt.Sprintf("animation %q bakes as clip %s, after its file: exporters give every file's animation that take name (a manifest's clips may rename it, source: %q)", c.Name, name, c.Name))
		} else if name != c.Name {
			notes = append(notes, fmt.Sprintf("animation %d %q bakes as clip %s: an earlier animation has its name, and clips are found by name", i, c.Name, name))
		}
		c.Name = name
	}
	return renamed, notes
}
