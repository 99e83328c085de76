package combat

// swingArgs is what the swing kernel (swing8) reads, by offset
// (TestSwingArgsLayout).
type swingArgs struct {
	wait, time, phase, tempo, release, contact *float32    // 0, 8, 16, 24, 32, 40
	strike                                     *int32      // 48
	target                                     *int32      // 56: World.Target, or strike when it is nil
	hp                                         *float32    // 64
	tab                                        *swingTable // 72
	dt                                         float32     // 80
}

// swingTable is the timeline by phase, eight lanes a row, for the kernel to
// pick each attacker's row with one permute: when each phase starts (start[7]:
// the swing's end) and how long it lasts, its window's start and span, and its
// ease t²(a−b·t) (Strike's is 1−(1−t)², which the kernel works out apart).
type swingTable struct {
	start, dur, lo, span, a, b [8]float32
}

// swingTab is the kernel's table, made by init once the phases' starts are
// known.
var swingTab swingTable

func newSwingTable() (t swingTable) {
	for k := Advance; k < numCombatPhases; k++ {
		t.start[k], t.dur[k] = phaseStart[k], phaseDuration[k]
		lo, hi := attackWindow[k][0], attackWindow[k][1]
		t.lo[k], t.span[k] = lo, hi-lo
		t.a[k], t.b[k] = 3, 2
	}
	t.start[numCombatPhases] = phaseStart[numCombatPhases]
	t.a[WindUp], t.b[WindUp] = 2.4, 1.4
	return t
}

// kernelArgs returns the swing kernel's arguments for a Step of w by dt, and
// whether the kernel may run: on a machine with it, with every slice it reads
// as long as Time, which Step's Go loop would otherwise find out by panicking.
func (m *Melee) kernelArgs(w *World, dt float32) (swingArgs, bool) {
	n := len(m.Time)
	if !useKernel || n < 8 || len(m.Wait) < n || len(m.Phase) < n || len(m.Tempo) < n || len(m.Release) < n ||
		len(m.Contact) < n || len(m.StrikeTarget) < n || len(w.HP) < n || (w.Target != nil && len(w.Target) < n) {
		return swingArgs{}, false
	}
	a := swingArgs{wait: &m.Wait[0], time: &m.Time[0], phase: &m.Phase[0], tempo: &m.Tempo[0], release: &m.Release[0],
		contact: &m.Contact[0], strike: &m.StrikeTarget[0], target: &m.StrikeTarget[0], hp: &w.HP[0], tab: &swingTab, dt: dt}
	if w.Target != nil {
		a.target = &w.Target[0]
	}
	return a, true
}
