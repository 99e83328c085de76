//go:build !amd64

package crowd

// run is the selection's pass in Go: every unit, then their Instances. It
// writes no memo.
func (sl *selection) run() bool {
	n := len(sl.species)
	sl.units(0, n)
	sl.rows(0, n)
	return false
}

// memo is the selection kernel's (animate_amd64.go); without one there is none.
type memo struct{}

func (m *memo) init(int)                               {}
func (m *memo) usable(*catalog) bool                   { return false }
func (m *memo) written(cat *catalog, used, whole bool) {}
