//go:build !amd64

package crowd

// run is the selection's pass in Go: every unit, then their Instances.
func (sl *selection) run() {
	n := len(sl.species)
	sl.units(0, n)
	sl.rows(0, n)
}
