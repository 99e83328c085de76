package gltfbake

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/source/gltf"
)

// FitTolerance is how far, as a fraction of the character's size, a joint's rest
// offset in a clip file may lie from the character's before the file is refused
// without --retarget (docs/formats/gltf.md §7). 1% of a 1.8 m character is 18 mm:
// far above the rounding of two exports of one rig (micrometres), far below a
// different body (Mixamo's X Bot and Y Bot differ by centimetres).
const FitTolerance = 0.01

// MinBound is the share of the nodes a clip file animates that must bind to
// the character's (docs/formats/gltf.md §7); the rest are noted and ignored.
const MinBound = 0.5

// MaxFrameAngle is how far, in degrees, a bone may point otherwise in its
// joint's frame in a clip file than in the character before --retarget refuses
// to copy the joint's rotations (docs/formats/gltf.md §7).
const MaxFrameAngle = 60

// ClipFilesSettings is how clip files are put on a character.
type ClipFilesSettings struct {
	// Retarget takes rotations from the clips and translations from the
	// character's rest pose, the root joints' travel scaled by the ratio of
	// hip heights, instead of refusing a file whose skeleton differs.
	Retarget bool
	// FilesRoot and NoLimits are as in Settings.
	FilesRoot string
	NoLimits  bool
	// Up is a BVH clip file's up axis ("" finds it, docs/formats/bvh.md §4).
	Up string
}

// AddClipFiles reads every animation of every file and appends it to m.Clips,
// bound to m's skeleton by node name (docs/formats/gltf.md §7): exactly, then
// ignoring a namespace prefix ("mixamorig:" and "mixamorig1:" name one joint).
// Clips whose own names are generic are named after their file, and every
// name added is unique among the model's clips. It returns what the user
// should be told (channels ignored, retarget ratios).
func AddClipFiles(m *gltf.Model, files []string, s ClipFilesSettings) (notes []string, err error) {
	used := make(map[string]bool, len(m.Clips))
	for _, c := range m.Clips {
		used[c.Name] = true
	}
	for _, path := range files {
		cf, err := loadClipFile(m, path, s)
		if err != nil {
			return nil, err
		}
		for _, n := range cf.Notes { // named by their file, as the notes below are
			if prefix := filepath.Base(path) + ": "; !strings.HasPrefix(n, prefix) {
				n = prefix + n
			}
			notes = append(notes, n)
		}
		b, err := bindClipFile(m, cf, s.Retarget)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for i, a := range b.clips {
			name := a.Name
			if cf.Unnamed[i] || genericClipName(name) {
				name = base
			}
			for k := 2; used[name]; k++ {
				name = fmt.Sprintf("%s_%d", base, k)
				if !cf.Unnamed[i] && !genericClipName(a.Name) {
					name = fmt.Sprintf("%s_%d", a.Name, k)
				}
			}
			used[name] = true
			switch {
			case len(a.Tracks) == 0 && cf.Weights[i] > 0:
				notes = append(notes, fmt.Sprintf("%s: animation %q animates only morph target weights, which are not baked (a BPAT file holds bone palettes): clip %s bakes as a still pose", filepath.Base(path), a.Name, name))
			case len(a.Tracks) == 0:
				notes = append(notes, fmt.Sprintf("%s: animation %q moves none of %s's nodes: clip %s bakes as a still pose", filepath.Base(path), a.Name, filepath.Base(m.Path), name))
			case cf.Weights[i] > 0:
				notes = append(notes, fmt.Sprintf("%s: animation %q: %s on morph target weights not baked (a BPAT file holds bone palettes)", filepath.Base(path), a.Name, words.Plural(cf.Weights[i], "channel")))
			}
			a.Name = name
			m.Clips = append(m.Clips, a)
			m.ClipMeta = append(m.ClipMeta, gltf.ClipMeta{})
		}
		notes = append(notes, b.notes...)
	}
	return notes, nil
}
