package mot

import (
	"fmt"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// WriteFiles bakes the motions on their rig (Load's model) into the BPAT file
// at path and, when gltfPath is not "", writes them there as glTF animations
// too (Export): one result, a set of files that take their names together or
// not at all (atomicfile.Set), as gltfbake's Model.WriteFiles writes a
// model's. The BPAT is read back with strict validation. It returns the BPAT's
// header and size; errors name the rig.
func WriteFiles(m *gltfbake.Model, path, gltfPath string) (bpat.Header, int64, error) {
	files := atomicfile.NewSet()
	defer files.Discard()
	if _, err := bake.BakeFileHeaderWith(files.Write, path, m.Job); err != nil {
		return bpat.Header{}, 0, fmt.Errorf("%s: %w", m.Path, err)
	}
	if gltfPath != "" {
		if err := gltf.WriteFileWith(files.Write, gltfPath, Export(m)); err != nil {
			return bpat.Header{}, 0, err
		}
	}
	if err := files.Commit(); err != nil {
		return bpat.Header{}, 0, err
	}
	f, err := bpat.Open(path, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		return bpat.Header{}, 0, fmt.Errorf("baked file does not validate: %w", err)
	}
	defer f.Close()
	return f.Header(), f.Size(), nil
}
