package viewer

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MaxCrowds is how many crowds the server keeps: a new one evicts the oldest.
const MaxCrowds = 4

type crowdStore struct {
	mu    sync.Mutex
	next  int
	live  map[int]*liveCrowd
	order []int // ids, oldest first
}

type liveCrowd struct {
	mu  sync.Mutex // one step at a time
	c   *Scene
	out []byte
}

// Crowds returns how many crowds the server holds.
func (s *Server) Crowds() int {
	s.crowds.mu.Lock()
	defer s.crowds.mu.Unlock()
	return len(s.crowds.live)
}

func (st *crowdStore) add(c *Scene) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.live == nil {
		st.live = map[int]*liveCrowd{}
	}
	for len(st.order) >= MaxCrowds {
		delete(st.live, st.order[0])
		st.order = st.order[1:]
	}
	st.next++
	st.live[st.next] = &liveCrowd{c: c}
	st.order = append(st.order, st.next)
	return st.next
}

func (st *crowdStore) get(id int) *liveCrowd {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.live[id]
}

type crowdJSON struct {
	ID     int              `json:"id"`
	Layout string           `json:"layout"`
	Units  int              `json:"unit_count"`
	Assets []crowdAssetJSON `json:"assets"`
	Extent [4]float32       `json:"extent"` // x0, z0, x1, z1 in metres
	// Playback is "clock" when the steps carry only changed time records (the
	// GPU clock mode), "frame" when they carry every unit's record.
	Playback string `json:"playback"`
	Note     string `json:"note,omitempty"`
}

type crowdAssetJSON struct {
	Units int            `json:"unit_count"`
	First int            `json:"first"` // index of its first record
	Rider int            `json:"rider"` // the asset its riders are drawn with, or -1
	Fades []fadeRuleJSON `json:"fades"` // how its clip changes fade
}

// serveCrowd answers POST /api/crowd and GET /api/crowd/{id}/step.
func (s *Server) serveCrowd(w http.ResponseWriter, r *http.Request, rest string) {
	if rest == "" {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !s.checkToken(w, r) || !checkJSON(w, r) {
			return
		}
		s.createCrowd(w, r)
		return
	}
	idText, what, _ := strings.Cut(rest, "/")
	id, err := strconv.Atoi(idText)
	if err != nil || strconv.Itoa(id) != idText || what != "step" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !s.checkToken(w, r) { // a step advances the crowd
		return
	}
	lc := s.crowds.get(id)
	if lc == nil {
		http.Error(w, fmt.Sprintf("crowd %d: no such crowd (it may have been replaced by newer ones)", id), http.StatusNotFound)
		return
	}
	in, dt, err := s.stepInput(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	view, err := parseView(r.URL.Query()) // level of detail (lod.go)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.c.SetView(view)
	f, err := lc.c.Step(dt, in)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lc.out = lc.c.AppendStep(lc.out[:0], f)
	s.send(w, r, "application/octet-stream", lc.out)
}

func (s *Server) createCrowd(w http.ResponseWriter, r *http.Request) {
	var p SceneParams
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		http.Error(w, "crowd parameters: "+err.Error(), http.StatusBadRequest)
		return
	}
	done, ok := s.startBuild(w) // crowds being built are bounded as built ones are
	if !ok {
		return
	}
	defer done()
	if s.buildHook != nil {
		s.buildHook()
	}
	c, err := s.NewScene(p)
	if err != nil {
		http.Error(w, "crowd parameters: "+err.Error(), http.StatusBadRequest)
		return
	}
	if _, err := c.Step(0, StepInput{Focus: -1, Seek: math.NaN()}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	j := crowdJSON{ID: s.crowds.add(c), Layout: c.Layout, Units: c.Len(), Extent: c.Extent(), Note: c.Note, Playback: "frame"}
	if c.Clocked() {
		j.Playback = "clock"
	}
	for a := range s.assets {
		j.Assets = append(j.Assets, crowdAssetJSON{Units: c.Count[a], First: c.First[a], Rider: c.Rider[a], Fades: fadeRules(c.regs.fades(a))})
	}
	b, _ := json.Marshal(j)
	s.send(w, r, "application/json", b)
}

// stepInput reads a step's query: dt (seconds, 0 to 1), focus (an asset index),
// clips (asset:clip pairs, comma-separated: the clip every unit of that asset
// plays), seek (a phase for the focus unit) and fades (0: clip changes switch at
// once; 1, the default: they fade).
func (s *Server) stepInput(r *http.Request) (StepInput, float32, error) {
	q := r.URL.Query()
	in := StepInput{Focus: -1, Seek: math.NaN()}
	dt, err := strconv.ParseFloat(q.Get("dt"), 32)
	if err != nil || !(dt >= 0 && dt <= 1) {
		return in, 0, fmt.Errorf("dt %q: want seconds from 0 to 1", q.Get("dt"))
	}
	if v := q.Get("focus"); v != "" {
		if in.Focus, err = strconv.Atoi(v); err != nil || in.Focus < -1 || in.Focus >= len(s.assets) {
			return in, 0, fmt.Errorf("focus %q: want an asset index from 0 to %d, or -1", v, len(s.assets)-1)
		}
	}
	if v := q.Get("clips"); v != "" {
		in.Override = make([]int, len(s.assets))
		for k := range in.Override {
			in.Override[k] = -1
		}
		for _, pair := range strings.Split(v, ",") {
			as, cs, ok := strings.Cut(pair, ":")
			a, err1 := strconv.Atoi(as)
			c, err2 := strconv.Atoi(cs)
			if !ok || err1 != nil || err2 != nil || a < 0 || a >= len(s.assets) || c < -1 || c >= len(s.assets[a].file.Clips()) {
				return in, 0, fmt.Errorf("clips %q: want asset:clip pairs of existing assets and clips", pair)
			}
			in.Override[a] = c
		}
	}
	switch v := q.Get("fades"); v {
	case "", "1":
	case "0":
		in.NoFade = true
	default:
		return in, 0, fmt.Errorf("fades %q: want 0 or 1", v)
	}
	if v := q.Get("seek"); v != "" {
		if in.Seek, err = strconv.ParseFloat(v, 64); err != nil || math.IsNaN(in.Seek) || math.IsInf(in.Seek, 0) {
			return in, 0, fmt.Errorf("seek %q: want a phase", v)
		}
	}
	return in, float32(dt), nil
}
