//go:build !amd64

package crowd

func step(entries []clipEntry, species []SpeciesID, clips []ClipID, phase, rate []float32, out []Instance, dt float32) {
	stepUnits(entries, species, clips, phase, rate, out, dt)
}
