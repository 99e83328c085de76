package main

import (
	"os"
	"strings"

	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// checkUpUsed refuses --up where it would change nothing: it gives BVH files'
// up axis (glTF and FBX carry their own axes), and none of files is a BVH file.
// With a manifest (given, or NAME.yaml beside a model) its clip_files may be,
// so nothing is refused then. A file that cannot be read is left to the bake,
// which names it.
func checkUpUsed(up string, files []string, manifests bool) error {
	if manifests {
		return nil
	}
	for _, f := range files {
		if ok, err := bvhsrc.IsBVH(f); err != nil || ok {
			return nil
		}
		if _, err := os.Stat(gltfbake.ManifestBeside(f)); err == nil {
			return nil
		}
	}
	return usagef("--up %s gives a BVH file's up axis, and none of %s is a BVH file: a glTF or FBX model carries its own axes (a model lying down bakes as it lies; turn it in the tool that made it)", up, strings.Join(files, ", "))
}
