package viewer

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// TestAssetsCarryGaits: the synthetic walker (planted feet at exactly 1.4 m/s over
// a 1 s cycle), viewed as a glTF model and as a baked .bpat with its sidecar,
// plays in the crowd registry with its measured gait, and /api/assets says so.
func TestAssetsCarryGaits(t *testing.T) {
	model := testfiles.WalkerGLTF(t, false)
	m, err := gltfbake.Load(model, gltfbake.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "walker.bpat")
	if err := bake.BakeFile(out, m.Job); err != nil {
		t.Fatal(err)
	}
	if err := gait.WriteFile(gait.SidecarPath(out), m.Gaits(out)); err != nil {
		t.Fatal(err)
	}
	fromGLTF, err := LoadGLTF(model)
	if err != nil {
		t.Fatal(err)
	}
	fromBPAT, err := LoadBPAT(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New([]*Asset{fromGLTF, fromBPAT})
	var list struct {
		Assets []assetJSON `json:"assets"`
	}
	if err := json.Unmarshal(get(t, s, "/api/assets").Body.Bytes(), &list); err != nil || len(list.Assets) != 2 {
		t.Fatalf("/api/assets: %v", err)
	}
	r := s.runtime()
	for k := range 2 {
		c := list.Assets[k].Clips[0]
		if c.GroundSpeedSource != registry.GaitMeasured || math.Abs(c.GroundSpeed-1.4) > 0.028 || c.Cycle != 1 {
			t.Errorf("asset %d: /api/assets gives %+v, want 1.4 m/s per 1 s cycle, measured", k, c)
		}
		sp := r.reg.Species(r.species(k))
		if sp == nil || sp.Clips[0].GaitSource != registry.GaitMeasured || math.Abs(sp.Clips[0].Gait.Speed-1.4) > 0.028 {
			t.Errorf("asset %d: the registry's clip: %+v", k, sp)
		}
	}

	// A sidecar that cannot be read: a warning, and the file plays without it.
	if err := os.WriteFile(gait.SidecarPath(out), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := LoadBPAT(out, nil)
	if err != nil || a.src.Gaits != nil || a.warning == "" {
		t.Errorf("a broken sidecar: %v, gaits %v, warning %q", err, a.src.Gaits, a.warning)
	}
}
