// The queue of collapse candidates, cheapest first.

package simplify

// edge is one directed collapse candidate: a onto b, valid while both groups
// keep the versions it was costed at.
type edge struct {
	cost   float64
	a, b   int
	va, vb uint32
}

type edgeHeap []edge

func (h edgeHeap) Len() int { return len(h) }

func (h edgeHeap) Less(i, j int) bool {
	if h[i].cost != h[j].cost {
		return h[i].cost < h[j].cost
	}
	if h[i].a != h[j].a {
		return h[i].a < h[j].a
	}
	return h[i].b < h[j].b
}

func (h edgeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *edgeHeap) Push(x any) { *h = append(*h, x.(edge)) }

func (h *edgeHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
