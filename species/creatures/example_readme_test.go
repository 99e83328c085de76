package creatures_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bonebake/bonebake/species/creatures"
)

// Example_readme is the README's "baking from Go": the six built-in species into
// a folder, as 'bonebake bake' does with no model.
func Example_readme() {
	dir, err := os.MkdirTemp("", "creatures") // a game would use assets/creatures
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, s := range creatures.All() { // humanoid, horse, elephant, ...: procedural, no asset files
		b, err := s.Bytes() // a BPAT file in memory
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".bpat"), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.bpat"))
	fmt.Println(len(files), "species baked")
	// Output: 6 species baked
}
