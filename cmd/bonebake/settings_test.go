package main

import (
	"errors"
	"reflect"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"
)

// TestSettingFlags: every setting the map names is a field of an adapter's
// Settings (a renamed field would leave its errors unmapped), every flag it
// names is one of bake's, and a SettingError becomes a usage error naming the
// flag.
func TestSettingFlags(t *testing.T) {
	bakeCmd := newBakeCmd()
	for setting, flag := range settingFlags {
		_, inGLTF := reflect.TypeOf(gltfbake.Settings{}).FieldByName(setting)
		_, inMot := reflect.TypeOf(motsrc.Settings{}).FieldByName(setting)
		if !inGLTF && !inMot {
			t.Errorf("%s: no such field in gltfbake.Settings or mot.Settings", setting)
		}
		if bakeCmd.Flags().Lookup(flag) == nil {
			t.Errorf("%s: bake has no flag --%s", setting, flag)
		}
	}
	err := libError(&bake.SettingError{Setting: "OneShot", Err: errors.New("Fox.glb: no clip")})
	if ue := (usageError{}); !errors.As(err, &ue) || err.Error() != "--one-shot: Fox.glb: no clip" {
		t.Fatalf("got %v (%T)", err, err)
	}
}
