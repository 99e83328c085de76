//go:build !amd64

package crowd

func step(entries []clipEntry, species []uint8, clips []uint16, phase, rate []float32, out []Instance, dt float32) {
	stepUnits(entries, species, clips, phase, rate, out, dt)
}
