package crowd

// step runs the SSE2 kernel over the units in whole groups of four and the Go
// kernel over the rest.
func step(entries []clipEntry, species []SpeciesID, clips []ClipID, phase, rate []float32, out []Instance, dt float32) {
	n := len(species)
	clips, phase, rate, out = clips[:n], phase[:n], rate[:n], out[:n]
	if g := n / 4; g > 0 {
		step4(&entries[0], len(entries)-1, &species[0], &clips[0], &phase[0], &rate[0], &out[0], g, dt)
	}
	t := n &^ 3
	stepUnits(entries, species[t:], clips[t:], phase[t:], rate[t:], out[t:], dt)
}

// step4 is stepUnits for groups×4 units, four at a time (batch_amd64.s). empty is
// the index of the last entry.
//
//go:noescape
func step4(entries *clipEntry, empty int, species *SpeciesID, clips *ClipID, phase, rate *float32, out *Instance, groups int, dt float32)
