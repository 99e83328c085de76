package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestRefuseFlags: the first rule that holds and names a flag given is the
// error, as a usage error "--FLAG why"; a rule that does not hold refuses
// nothing.
func TestRefuseFlags(t *testing.T) {
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fl.Bool("a", false, "")
	fl.Bool("b", false, "")
	fl.Bool("c", false, "")
	if err := fl.Parse([]string{"--b", "--c"}); err != nil {
		t.Fatal(err)
	}
	err := refuseFlags(fl, []flagRule{{false, []string{"b"}, "does not hold"}, {true, []string{"a"}, "not given"}, {true, []string{"c", "b"}, "is refused"}, {true, []string{"b"}, "comes later"}})
	if ue := (usageError{}); !errors.As(err, &ue) || err.Error() != "--c is refused" {
		t.Errorf("got %v (%T), want the usage error --c is refused", err, err)
	}
	if err := refuseFlags(fl, []flagRule{{false, []string{"b", "c"}, "does not hold"}}); err != nil {
		t.Errorf("a rule that does not hold: %v", err)
	}
}

// TestFlagRules: each command's table refuses a flag in the way of running it
// does not apply to, in the words the commands said before the tables.
func TestFlagRules(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	mot := []string{"bake", "--mot", "a.mot", "--rig", "r.glb", "-o", "m.bpat"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(mot, "--face", "+x"), "--face applies to a glTF model's bake, not to --mot"},
		{append(mot, "--bpat-version", "2"), "--bpat-version applies to a glTF model or the built-in creatures"},
		{append(mot, "--manifest", "m.yaml"), "--manifest does not apply to --mot"},
		{[]string{"bake", "--snapshot"}, "--snapshot applies to a model: the built-in creatures always get their snapshot meshes"},
		{[]string{"bake", "--scale", "2"}, "--scale applies to a model; the built-in creatures carry their own settings"},
		{[]string{"bake", "--files-root", t.TempDir()}, "--files-root applies to a model; the built-in creatures carry their own settings"},
		{[]string{"bake", "--package", "c.bpx", "-v"}, "--verbose does not apply to --package: the package is the one file written (--package OUT.bpx)"},
		{[]string{"bake", fox, "--package", "c.bpx"}, "--package bakes the built-in creatures; it does not apply to a model"},
		{[]string{"bake", fox, "--species", "horse"}, "--species picks built-in creatures; it does not apply to a model"},
		{[]string{"bake", fox, "--snapshot-lod", "1"}, "--snapshot-lod needs --snapshot"},
		{[]string{"bat", "horse", "-o", t.TempDir(), "--all-joints"}, "--all-joints is a setting of --preset gametools (the Blender add-on's)"},
		{[]string{"bat", "horse", "-o", t.TempDir(), "--max-bones", "9"}, "--max-bones applies to files; the built-in creatures carry their own settings"},
		{[]string{"view", fox, "--retarget"}, "--retarget applies to the clips of --clips"},
		{[]string{"view", "--up", "+Z"}, "--up applies to BVH files: name them (view walk.bvh --up +Z)"},
		{[]string{"view", "--plant-feet"}, "--plant-feet applies to models (glTF, FBX, BVH): name them (view Fox.glb --scale 0.01)"},
	} {
		code, _, errOut := bonebake(t, c.args...)
		if first, _, _ := strings.Cut(errOut, "\n"); code != exitUsage || first != "bonebake: "+c.want {
			t.Errorf("%s: exit %d, %q; want exit %d, %q", strings.Join(c.args, " "), code, first, exitUsage, c.want)
		}
	}
}
