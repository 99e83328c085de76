package crowd

import "github.com/bonebake/bonebake/crowd/combat"

// A scheduled Combat (Combat.Schedule) times a swing's release, contact and end
// once, when the swing starts, as events on a clock, instead of scanning every
// attacker every frame: the combat side of the GPU clock mode, whose cost per frame
// is proportional to what happens in it. The rules are Melee's (docs/runtime.md
// §8–§9); what differs is when a cancellation is noticed: an attacker that died or
// retargeted is found out at its contact time rather than at once.

// eventReady is a scheduled combat's own event: an attacker's cooldown ran out.
const eventReady combat.EventKind = 255

// timed is an event due at a time: a swing's release, contact (EventHit) or end,
// or an attacker's cooldown running out.
type timed struct {
	at    float64
	unit  int32
	kind  combat.EventKind
	swing uint32 // the attacker's swing count when it was scheduled: stale events are dropped
}

// queue is a binary min-heap of timed events by time; at equal times a release
// comes before its contact, and a contact before its swing's end, as Melee.Step
// handles them.
type queue []timed

func (e timed) before(o timed) bool { return e.at < o.at || e.at == o.at && e.kind < o.kind }

func (q *queue) push(e timed) {
	*q = append(*q, e)
	h := *q
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if !h[k].before(h[p]) {
			break
		}
		h[p], h[k] = h[k], h[p]
		k = p
	}
}

func (q *queue) pop() timed {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for k := 0; ; {
		l, m := 2*k+1, k
		if l < n && h[l].before(h[m]) {
			m = l
		}
		if l+1 < n && h[l+1].before(h[m]) {
			m = l + 1
		}
		if m == k {
			break
		}
		h[m], h[k] = h[k], h[m]
		k = m
	}
	*q = h
	return top
}

// scheduled is a scheduled Combat's state, per attacker.
type scheduled struct {
	queue   queue
	readyAt []float64 // when the cooldown runs out
	swungAt []float64 // when the current swing started; its timeline then stood at Melee.Time
	swing   []uint32  // swings started, to tell stale events
	over    []float32 // how far past readyAt the step went in which the cooldown ran out
}

// attackTime is the timeline time at which the attack phase first reaches phase:
// the inverse of AttackPhase, which never decreases (the end of the swing for a
// phase it never reaches).
func attackTime(phase float32) float32 {
	if combat.AttackPhase(0) >= phase {
		return 0
	}
	if combat.AttackPhase(combat.SwingDuration) < phase {
		return combat.SwingDuration
	}
	lo, hi := float32(0), combat.SwingDuration
	for range 40 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if combat.AttackPhase(mid) >= phase {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// ready reports whether attacker i may start a swing now and, scheduled, sets its
// Melee.Wait as a frame-stepped Melee would have it, for Melee.start.
func (f *Combat) ready(i int) bool {
	s := f.sched
	if s == nil {
		return f.Melee.Ready(i)
	}
	if f.Now < s.readyAt[i] {
		return false
	}
	// A frame-stepped cooldown runs out within a step, and that step's overshoot
	// carries into the next swing, however much later it starts; the same here.
	f.Melee.Wait[i] = -s.over[i]
	return true
}

// scheduleSwing times the swing attacker i just started: its release, contact and
// end on the combat clock.
func (f *Combat) scheduleSwing(i int) {
	s, m := f.sched, f.Melee
	s.readyAt[i] = f.Now + float64(m.Wait[i])
	s.swungAt[i] = f.Now
	s.swing[i]++
	tau0, tempo := m.Time[i], m.Tempo[i]
	at := func(tau float32) float64 { return f.Now + float64(max(tau-tau0, 0)/tempo) }
	if r := m.Release[i]; r >= 0 {
		s.queue.push(timed{at: at(attackTime(r)), unit: int32(i), kind: combat.EventRelease, swing: s.swing[i]})
	}
	s.queue.push(timed{at: at(attackTime(m.Contact[i])), unit: int32(i), kind: combat.EventHit, swing: s.swing[i]})
	s.queue.push(timed{at: at(combat.SwingDuration), unit: int32(i), kind: combat.EventEnd, swing: s.swing[i]})
	s.queue.push(timed{at: s.readyAt[i], unit: int32(i), kind: eventReady, swing: s.swing[i]})
}

// stepScheduled advances the clock by dt and handles the events now due, in time
// order, as Melee.Step would have on the frames they fall in.
func (f *Combat) stepScheduled(dt float32) {
	s, m, w := f.sched, f.Melee, &f.World
	f.Now += float64(dt)
	if len(m.Late) > 0 {
		f.hits = append(f.hits, m.Late...)
		m.Late = m.Late[:0]
	}
	for len(s.queue) > 0 && s.queue[0].at <= f.Now {
		e := s.queue.pop()
		i := int(e.unit)
		if e.swing != s.swing[i] {
			continue // another swing has started since
		}
		if e.kind == eventReady {
			s.over[i] = float32(f.Now - s.readyAt[i])
			continue
		}
		if m.Time[i] < 0 {
			continue // the swing was cancelled
		}
		switch e.kind {
		case combat.EventRelease:
			if m.Release[i] >= 0 {
				m.Release[i] = -1
				m.Emit(combat.EventRelease, i, m.StrikeTarget[i], m.StrikeDamage[i], false)
			}
		case combat.EventHit:
			tg := m.StrikeTarget[i]
			if tg < 0 {
				break
			}
			if !w.Alive(int32(i)) || (w.Target != nil && w.Target[i] != tg) {
				m.Cancel(i) // ends the swing too
				break
			}
			f.hits = m.Land(w, i, f.hits)
		case combat.EventEnd:
			if m.StrikeTarget[i] >= 0 {
				f.hits = m.Land(w, i, f.hits)
			}
			m.Time[i], m.Phase[i], m.Release[i] = -1, -1, -1
			m.Emit(combat.EventEnd, i, -1, 0, false)
		}
	}
}

// swingAt returns unit i's swing at time t of the combat clock: the timeline
// seconds and tempo, for a GPUClock record; ok is false without a scheduled swing.
func (f *Combat) swingAt(i int, t float64) (tau, tempo float32, ok bool) {
	s, m := f.sched, f.Melee
	if s == nil || m.Time[i] < 0 {
		return 0, 0, false
	}
	return m.Time[i] + m.Tempo[i]*float32(t-s.swungAt[i]), m.Tempo[i], true
}
