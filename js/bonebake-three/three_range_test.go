package bonebakethree

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// oldestThree installs the oldest three.js release of the package's peer
// range (test/three-oldest's lock) with npm ci into a cache folder of its
// own, and returns that folder; the binding's tests run on it too.
func oldestThree(t testing.TB) string {
	t.Helper()
	return testfiles.NpmCache(t, "test/three-oldest", "bonebake-three-npm-oldest", "package.json", "package-lock.json")
}

// threeVersion is the version in three.js's package.json at path.
func threeVersion(t testing.TB, path string) string {
	t.Helper()
	var p struct{ Version string }
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil || p.Version == "" {
		t.Fatalf("three.js's version in %s: %v", path, err)
	}
	return p.Version
}

// TestThreeRange: the peer range the package declares is the one its tests
// run: from the oldest release test/three-oldest pins up to the next minor
// release after the one package.json pins for development (three.js makes
// breaking changes in every minor release, so a later one is untested).
func TestThreeRange(t *testing.T) {
	var pkg, oldest struct {
		PeerDependencies, DevDependencies map[string]string
	}
	for _, f := range []struct {
		path string
		into any
	}{{"package.json", &pkg}, {filepath.Join("test", "three-oldest", "package.json"), &oldest}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, f.into); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
	}
	dev, old := pkg.DevDependencies["three"], oldest.DevDependencies["three"]
	var major, minor int
	if _, err := fmt.Sscanf(dev, "%d.%d.", &major, &minor); err != nil {
		t.Fatalf("package.json's devDependencies pin three %q: want a version", dev)
	}
	want := fmt.Sprintf(">=%s <%d.%d.0", old, major, minor+1)
	if got := pkg.PeerDependencies["three"]; got != want {
		t.Errorf("package.json's peer range of three is %q; the tests run %s and %s: want %q", got, old, dev, want)
	}
	if strings.ContainsAny(old, "^~<>=* ") {
		t.Errorf("test/three-oldest pins three %q: want one version", old)
	}
}

// TestNodeOldestThree runs the node tests that import three on the oldest
// three.js of the peer range. Full suite only.
func TestNodeOldestThree(t *testing.T) {
	if testing.Short() {
		t.Skip("the tests on the oldest three.js run in the full suite")
	}
	nodeTests(t, oldestThree, func(path string) bool {
		b, err := os.ReadFile(path)
		return err == nil && (strings.Contains(string(b), "import('three')") || strings.Contains(string(b), "from 'three'"))
	})
}

// TestBrowserOldestThree runs the browser tests' checks, fewer materials
// kinds, on the oldest three.js of the peer range: the posed matrices from
// both passes, the silhouette with the model's own material and a standard
// one posed on the GPU, the shadow and the golden cases on the GPU; the
// levels of detail, culling and props on sockets.
func TestBrowserOldestThree(t *testing.T) {
	ctx := openWith(t, page{path: testPage, ready: "bonebakeReady", failed: "bonebakeError", three: oldestThree})
	if v := eval[string](t, ctx, `import('three').then((T) => T.REVISION)`); !strings.HasPrefix(threeVersion(t, filepath.Join(oldestThree(t), "node_modules", "three", "package.json")), "0."+v+".") {
		t.Fatalf("the page runs three.js r%s, not the oldest release", v)
	}
	for _, gpu := range []bool{false, true} {
		t.Run(map[bool]string{false: "poses/cpu", true: "poses/gpu"}[gpu], func(t *testing.T) { testPoses(t, ctx, gpu) })
	}
	t.Run("silhouette", func(t *testing.T) { testSilhouette(t, ctx, []string{"own", "standard/gpu"}) })
	t.Run("shadow", func(t *testing.T) { testShadow(t, ctx) })
	t.Run("golden", func(t *testing.T) { testGoldenGPU(t, ctx) })
	t.Run("levels", func(t *testing.T) { testLevels(t, ctx) })
	t.Run("culling", func(t *testing.T) { testCulling(t, ctx) })
	t.Run("socket props", func(t *testing.T) { testSocketProps(t, ctx) })
}
