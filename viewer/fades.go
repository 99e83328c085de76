package viewer

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// fadeRuleJSON is one rule of an asset's fade table as the page lists it: a
// change into one of the states To from one of the states From fades over
// Seconds (0: it switches at once). A null From is any state not named by an
// earlier rule of the same To; a null To, any state. An asset that is no
// built-in species has no states: its one rule, both null, is every clip change.
type fadeRuleJSON struct {
	To      []string `json:"to"`
	From    []string `json:"from"`
	Seconds float32  `json:"seconds"`
}

// fadeRules writes a fade table compactly: the states entered whose columns are
// alike share rules. Within them the last rule, "from any other state", takes
// the time of a change within the first of them (a new variant, the usual
// case), after the other times, each with the states it comes from. Nil stands
// for registry.FadeLocomotion on every change.
func fadeRules(t *registry.FadeTable) []fadeRuleJSON {
	if t == nil {
		return []fadeRuleJSON{{Seconds: registry.FadeLocomotion}}
	}
	column := func(to unit.StateID) (c [unit.NumStates]float32) {
		for from := range unit.NumStates {
			c[from] = t[from][to]
		}
		return c
	}
	var rules []fadeRuleJSON
	done := [unit.NumStates]bool{}
	for to := range unit.NumStates {
		if done[to] {
			continue
		}
		col := column(to)
		var into []string
		for o := to; o < unit.NumStates; o++ {
			if !done[o] && column(o) == col {
				done[o] = true
				into = append(into, o.String())
			}
		}
		if len(into) == int(unit.NumStates) {
			into = nil
		}
		common := col[to]
		var times []float32
		from := map[float32][]string{}
		for s, v := range col {
			if v == common {
				continue
			}
			if from[v] == nil {
				times = append(times, v)
			}
			from[v] = append(from[v], unit.StateID(s).String())
		}
		for _, v := range times {
			rules = append(rules, fadeRuleJSON{To: into, From: from[v], Seconds: v})
		}
		rules = append(rules, fadeRuleJSON{To: into, Seconds: common})
	}
	return rules
}
