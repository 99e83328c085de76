package bonebakethree

import (
	"os"
	"testing"
)

// TestMain removes the folders the tests bake models into once they are done
// with them (bakedSoldier's and bakedRoot's), so that no run leaves a folder
// behind in the system's temporary folder.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{soldier.dir, baked.root} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}
