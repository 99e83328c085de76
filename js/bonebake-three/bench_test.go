package bonebakethree

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// benchResult is bench/bench.js's window.benchResult.
type benchResult struct {
	GPU           string
	Width, Height int
	FPS           float64
	Frames        int
	Draw          bool
	Steps         map[string][]benchStep
	At            struct {
		Ms              float64
		Bonebake, Mixer *struct{ Units, AtLeast int }
		Ratio           float64
	}
}

// benchStep is one approach at one crowd size: median milliseconds a frame
// (GPU included) and of the animation's CPU work, and the pixels it covered.
type benchStep struct {
	N                       int
	FrameMs, CPUMs, BuildMs float64
	Covered                 int
}

// runBench opens bench/index.html with query in headless Chromium and waits
// up to sweep for its result.
func runBench(t testing.TB, query string, sweep time.Duration) benchResult {
	t.Helper()
	ctx := openWith(t, page{path: "bench/index.html?" + query, ready: "benchStarted", failed: "benchError", timeout: sweep + 2*time.Minute})
	return eval[benchResult](t, ctx, fmt.Sprintf(`new Promise((res, rej) => { const t0 = Date.now(); (function wait() {
		if (window.benchDone) return res(window.benchResult);
		if (window.benchError) return rej(new Error(window.benchError));
		if (Date.now() - t0 > %d) return rej(new Error('the sweep did not finish in time: ' + document.getElementById('report').textContent));
		setTimeout(wait, 250); })(); })`, sweep.Milliseconds()))
}

// benchTable is the result as BENCHMARKS.md shows it.
func benchTable(r benchResult) string {
	var b strings.Builder
	drawn := ""
	if !r.Draw {
		drawn = ", nothing drawn (the animation alone)"
	}
	fmt.Fprintf(&b, "%s, %d×%d%s, median of %d frames\n", r.GPU, r.Width, r.Height, drawn, r.Frames)
	fmt.Fprintf(&b, "| units | bonebake frame ms | bonebake CPU ms | clones+mixers frame ms | clones+mixers CPU ms |\n|---:|---:|---:|---:|---:|\n")
	rows := map[int][2]*benchStep{}
	var order []int
	for k, name := range []string{"bonebake", "mixer"} {
		for i := range r.Steps[name] {
			s := &r.Steps[name][i]
			row, ok := rows[s.N]
			if !ok {
				order = append(order, s.N)
			}
			row[k] = s
			rows[s.N] = row
		}
	}
	cell := func(s *benchStep) string {
		if s == nil {
			return " | "
		}
		return fmt.Sprintf("%.1f | %.2f", s.FrameMs, s.CPUMs)
	}
	for _, n := range order {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", n, cell(rows[n][0]), cell(rows[n][1]))
	}
	units := func(u *struct{ Units, AtLeast int }) string {
		switch {
		case u == nil:
			return "fewer than the first step"
		case u.AtLeast > 0:
			return fmt.Sprintf("over %d (the sweep's cap)", u.AtLeast)
		}
		return fmt.Sprint(u.Units)
	}
	fmt.Fprintf(&b, "at %.1f ms a frame (%.0f fps): bonebake-three %s units, clones with mixers %s", r.At.Ms, r.FPS, units(r.At.Bonebake), units(r.At.Mixer))
	if r.At.Ratio > 0 {
		fmt.Fprintf(&b, ": %.1f×", r.At.Ratio)
	}
	return b.String()
}

// TestBrowserBench: the benchmark page runs both approaches on 25 Soldiers
// and reports a frame time and a CPU time for each, and the two draw the same
// crowd: the pixels they cover agree within 10 % (same character, places,
// headings, clips and phases).
func TestBrowserBench(t *testing.T) {
	r := runBench(t, "from=25&to=25&warm=1&frames=1&w=320&h=180", 3*time.Minute)
	t.Logf("\n%s\npixels covered: bonebake %d, clones %d", benchTable(r), r.Steps["bonebake"][0].Covered, r.Steps["mixer"][0].Covered)
	var covered []int
	for _, name := range []string{"bonebake", "mixer"} {
		s := r.Steps[name]
		if len(s) != 1 || s[0].N != 25 {
			t.Fatalf("%s: steps %+v; want one of 25 units", name, s)
		}
		if !(s[0].FrameMs > 0 && s[0].FrameMs < 1e5 && s[0].CPUMs > 0 && s[0].CPUMs <= s[0].FrameMs) {
			t.Errorf("%s: frame %v ms, CPU %v ms: want a frame time and a CPU share of it", name, s[0].FrameMs, s[0].CPUMs)
		}
		covered = append(covered, s[0].Covered)
	}
	if covered[0] < 500 || math.Abs(float64(covered[0]-covered[1])) > 0.1*float64(covered[1]) {
		t.Errorf("pixels covered: bonebake %d, clones %d: want the same crowd (within 10 %%), of over 500 pixels", covered[0], covered[1])
	}
}

// BenchmarkBrowserCrowd runs the benchmark page's whole sweep (N from 100 by
// √2 until each approach falls below 30 fps) once, in headless Chromium
// (SwiftShader unless BONEBAKE_CHROMIUM_GL names a GPU), and prints its table;
// BONEBAKE_BENCH_QUERY adds to or overrides the page's parameters (default
// w=960&h=540). It reports the units each approach draws at 30 fps and their
// ratio. A run takes minutes:
//
//	go test ./js/bonebake-three -run '^$' -bench BrowserCrowd -timeout 40m
func BenchmarkBrowserCrowd(b *testing.B) {
	query := "w=960&h=540" // the page reads a parameter's first value: the variable's go first
	if q := os.Getenv("BONEBAKE_BENCH_QUERY"); q != "" {
		query = q + "&" + query
	}
	r := runBench(b, query, 30*time.Minute)
	fmt.Printf("\n%s\n", benchTable(r)) // whole: the benchmark's log shows ten lines

	if u := r.At.Bonebake; u != nil {
		b.ReportMetric(float64(max(u.Units, u.AtLeast)), "bonebake-units")
	}
	if u := r.At.Mixer; u != nil {
		b.ReportMetric(float64(max(u.Units, u.AtLeast)), "mixer-units")
	}
	if r.At.Ratio > 0 {
		b.ReportMetric(r.At.Ratio, "ratio")
	}
}
