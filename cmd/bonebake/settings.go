package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/pflag"
)

// settingFlags is the flag that sets each library setting, by field name
// (bake.SettingError's Setting: a field of gltfbake.Settings or source/mot's
// Settings, or SnapshotMesh for gltfbake.SnapshotSettings.Mesh; in the
// libraries' prose also the options below them that a flag sets: gltf, bvh
// and stride's Options, bake.Job's MaxBytes): the one place the command line
// names the library's settings.
var settingFlags = map[string]string{
	"FPS":               "fps",
	"SpeciesID":         "species-id",
	"FreeSpeciesID":     "species-id", // the id bake MODEL... -o DIR picks stands for --species-id
	"Version":           "bpat-version",
	"Skin":              "skin",
	"MaxBones":          "max-bones",
	"OneShot":           "one-shot",
	"Sockets":           "socket",
	"Scale":             "scale",
	"DeformingOnly":     "deforming-only",
	"Feet":              "feet",
	"RootBone":          "root-bone",
	"PlantFeet":         "plant-feet",
	"InPlace":           "in-place",
	"Up":                "up",
	"Face":              "face",
	"BoneMap":           "bone-map",
	"RotationOrder":     "rotation-order",
	"KeepLeadIn":        "keep-lead-in",
	"Retarget":          "retarget",
	"ClipFiles":         "clips",
	"SnapshotMesh":      "snapshot-mesh",
	"SnapshotTriangles": "snapshot-triangles",
	"SnapshotFPS":       "snapshot-fps",
	"NoLimits":          "force",
	"NoMemoryLimit":     "force", // gltf.Options'
	"MaxBytes":          "force", // bake.Job's
	"FilesRoot":         "files-root",
	"Manifest":          "manifest",
	"KnownSpecies":      "species", // formats.KnownSpecies, the readers' option
	"Out":               "o",       // gltfbake.FolderOutput's: bake's -o
}

// dashed is a flag as the command line is given it: -o, --max-bones.
func dashed(flag string) string {
	if len(flag) == 1 {
		return "-" + flag
	}
	return "--" + flag
}

// settingRef is how the libraries' prose (notes, hints, errors, reports)
// names a setting: Settings.MaxBones, SnapshotSettings.Mesh, Options.Up,
// Job.MaxBytes, FolderOutput.Out, gltfbake.Settings.ClipFiles from a package
// below gltfbake, and the readers' formats.KnownSpecies. It is compiled on first use: most prose
// names no setting (see flagWords).
var settingRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:[a-z]+\.)?(Snapshot)?(?:Settings|Options|Job|FolderOutput)\.([A-Z][A-Za-z]*)|\bformats\.(KnownSpecies)\b`)
})

// keyRef is how prose that is also written into a file for people who never
// see Go names a setting (a gait sidecar's reason): by its manifest key, "the
// feet setting", "the root_bone setting".
var keyRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bthe ([a-z][a-z_]*) setting\b`)
})

// keyFlag is the flag of the setting whose manifest key is key (root_bone →
// root-bone), if one of settingFlags' flags is that.
func keyFlag(key string) (string, bool) {
	flag := strings.ReplaceAll(key, "_", "-")
	for _, f := range settingFlags {
		if f == flag {
			return f, true
		}
	}
	return "", false
}

// flagWords words the library's prose for the command line: each setting it
// names becomes its flag (Settings.MaxBones → --max-bones, the feet setting →
// --feet).
func flagWords(s string) string {
	if strings.Contains(s, " setting") {
		re := keyRef()
		s = re.ReplaceAllStringFunc(s, func(ref string) string {
			if flag, ok := keyFlag(re.FindStringSubmatch(ref)[1]); ok {
				return "--" + flag
			}
			return ref
		})
	}
	if !strings.Contains(s, "Settings.") && !strings.Contains(s, "Options.") && !strings.Contains(s, "Job.") && !strings.Contains(s, "Output.") && !strings.Contains(s, "formats.") {
		return s // settingRef cannot match
	}
	re := settingRef()
	return re.ReplaceAllStringFunc(s, func(ref string) string {
		m := re.FindStringSubmatch(ref)
		if flag, ok := settingFlags[m[1]+m[2]+m[3]]; ok {
			return dashed(flag)
		}
		return ref
	})
}

// flagWorded is an error of the library worded with flags (flagWords); it
// unwraps to the library's error.
type flagWorded struct {
	msg string
	err error
}

func (e flagWorded) Error() string { return e.msg }
func (e flagWorded) Unwrap() error { return e.err }

// libError turns an error of the library into the command line's: a setting
// that does not fit, or a folder plan that cannot be, is a usage error naming
// its flag, a file over the size limit says which flags lower or lift it; any
// other error names flags where it names settings (flagWords); nil stays nil.
func libError(err error) error {
	if err == nil {
		return nil
	}
	if se := (*bake.SettingError)(nil); errors.As(err, &se) {
		flag, ok := settingFlags[se.Setting]
		if !ok {
			flag = se.Setting
		}
		if se.ReadsOn {
			return usagef("%s %s", dashed(flag), flagWords(se.Err.Error()))
		}
		return usagef("%s: %s", dashed(flag), flagWords(se.Err.Error()))
	}
	if fe := (*gltfbake.FailedError)(nil); errors.As(err, &fe) {
		return exitError{exitFailure} // each model's error was told
	}
	if fe := (*gltfbake.FolderError)(nil); errors.As(err, &fe) {
		return usagef("%s", flagWords(fe.Error()))
	}
	if le := (*gltfbake.LimitError)(nil); errors.As(err, &le) {
		if le.Snapshot {
			return fmt.Errorf("%s: the snapshot would be %s (%d vertices × %s × %d bytes), more than the %s limit: lower --snapshot-fps or --snapshot-triangles, or pass --force",
				le.Model, bytesText(le.Bytes), le.Vertices, plural(le.Frames, "frame"), bpsm.VertexSize, bytesText(le.Limit))
		}
		return fmt.Errorf("%s: the bake would write %s (%s of %s), more than the %s limit: lower --fps, shorten clips, or pass --force",
			le.Model, bytesText(le.Bytes), plural(le.Frames, "frame"), plural(le.Bones, "bone"), bytesText(le.Limit))
	}
	if msg := flagWords(err.Error()); msg != err.Error() {
		return flagWorded{msg, err}
	}
	return err
}

// givenSettings says which settings the command line was given: those whose
// flag was (settingFlags), for the library's Settings.Check, which then checks
// a zero given (--fps 0) as any other value.
func givenSettings(fl *pflag.FlagSet) func(setting string) bool {
	return func(setting string) bool { return fl.Changed(settingFlags[setting]) }
}

// changed is the first of flags the command line was given, or "".
func changed(fl *pflag.FlagSet, flags ...string) string {
	for _, f := range flags {
		if fl.Changed(f) {
			return f
		}
	}
	return ""
}
