package main

import (
	"errors"
	"fmt"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// settingFlags is the flag that sets each adapter setting (bake.SettingError's
// Setting: a field of gltfbake.Settings or source/mot's Settings): the one place
// the command line names the library's settings.
var settingFlags = map[string]string{
	"FPS":           "fps",
	"SpeciesID":     "species-id",
	"FreeSpeciesID": "species-id", // the id bake MODEL... -o DIR picks stands for --species-id
	"Version":       "bpat-version",
	"Skin":          "skin",
	"MaxBones":      "max-bones",
	"OneShot":       "one-shot",
	"Sockets":       "socket",
	"Scale":         "scale",
	"DeformingOnly": "deforming-only",
	"Feet":          "feet",
	"RootBone":      "root-bone",
	"Up":            "up",
	"BoneMap":       "bone-map",
	"RotationOrder": "rotation-order",
}

// libError turns an error of the library into the command line's: a setting
// that does not fit is a usage error naming its flag, a file over the size
// limit says which flags lower or lift it; any other error is as it is.
func libError(err error) error {
	if se := (*bake.SettingError)(nil); errors.As(err, &se) {
		flag, ok := settingFlags[se.Setting]
		if !ok {
			flag = se.Setting
		}
		return usagef("--%s: %v", flag, se.Err)
	}
	if le := (*gltfbake.LimitError)(nil); errors.As(err, &le) {
		if le.Snapshot {
			return fmt.Errorf("%s: the snapshot would be %s (%d vertices × %s × %d bytes), more than the %s limit: lower --snapshot-fps or --snapshot-triangles, or pass --force",
				le.Model, bytesText(le.Bytes), le.Vertices, plural(le.Frames, "frame"), bpsm.VertexSize, bytesText(le.Limit))
		}
		return fmt.Errorf("%s: the bake would write %s (%s of %s), more than the %s limit: lower --fps, shorten clips, or pass --force",
			le.Model, bytesText(le.Bytes), plural(le.Frames, "frame"), plural(le.Bones, "bone"), bytesText(le.Limit))
	}
	return err
}
