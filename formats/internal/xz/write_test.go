package xz

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	uxz "github.com/ulikunitz/xz"
)

// compress writes data through a Writer in pieces of the given size
// (0: one Write).
func compress(t testing.TB, data []byte, cfg WriterConfig, piece int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if piece <= 0 {
		piece = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		n := min(piece, len(p))
		if k, err := w.Write(p[:n]); err != nil || k != n {
			t.Fatalf("Write: %d, %v", k, err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkDecodes decodes stream with github.com/ulikunitz/xz and, where it is
// installed, with xz itself (which also validates every check), and
// compares with want; then with this package's reader in each configuration.
func checkDecodes(t *testing.T, stream, want []byte) {
	t.Helper()
	r, err := uxz.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatalf("ulikunitz/xz: %v", err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("ulikunitz/xz: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("ulikunitz/xz: decoded %d bytes differ from the %d written", len(got), len(want))
	}
	xzDecode(t, stream, want)
	expectDecodes(t, stream, want)
}

func xzDecode(t *testing.T, stream, want []byte) {
	t.Helper()
	path, err := exec.LookPath("xz")
	if err != nil {
		return // TestXZAvailable reports the skip once
	}
	cmd := exec.Command(path, "-dc")
	cmd.Stdin = bytes.NewReader(stream)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz -dc: %v: %s", err, stderr.String())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("xz -dc: decoded %d bytes differ from the %d written", len(got), len(want))
	}
}

func TestXZAvailable(t *testing.T) { xzTool(t) }

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	slow(t)
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	// Text with long repeats at distances near and beyond the window.
	var text strings.Builder
	para := string(mixedData(3000, 9)[:2000])
	for i := 0; text.Len() < 6<<20; i++ {
		text.WriteString(para[:500+i%1500])
		text.WriteString(strings.Repeat("bone palette ", i%50))
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one byte", []byte{'x'}},
		{"all bytes", all},
		{"zeros 10MiB", make([]byte, 10<<20)},
		{"random 3MiB", randomBytes(3<<20, 1)},
		// Mixed data over two whole default blocks is TestMixedRatio's stream,
		// checked by the same three decoders; here one short block of it.
		{"mixed 1.5MiB", mixedData(3<<19, 2)},
		{"long repeats", []byte(text.String())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkDecodes(t, compress(t, c.data, WriterConfig{}, 0), c.data)
		})
	}
}

// TestBoundaries writes sizes around LZMA2's chunk limits and the block size.
func TestBoundaries(t *testing.T) {
	slow(t)
	src := mixedData(5<<20, 4)
	rnd := randomBytes(5<<20, 4)
	// Around a chunk's 64 KiB of packed data, one block and two: the block
	// size is small (its window 128 KiB) to make the sizes small.
	const bs = 1 << 19
	sizes := []int{1<<16 - 1, 1 << 16, 1<<16 + 1, bs - 1, bs, bs + 1, 2*bs - 1, 2 * bs, 2*bs + 1}
	for _, n := range sizes {
		for _, d := range [][]byte{src[:n], rnd[:n]} {
			checkDecodes(t, compress(t, d, WriterConfig{BlockSize: bs}, 0), d)
		}
	}
	// Around the default block size: zeros (quick to compress) up to the
	// last mebibyte before the boundary, mixed data from there on.
	for _, n := range []int{DefaultBlockSize - 1, DefaultBlockSize, DefaultBlockSize + 1} {
		d := make([]byte, n)
		copy(d[DefaultBlockSize-1<<20:], src)
		checkDecodes(t, compress(t, d, WriterConfig{}, 0), d)
	}
}

func TestChecks(t *testing.T) {
	size, block := 1<<20, 300<<10 // several blocks, the last one short
	if testing.Short() {
		size, block = 256<<10, 75<<10
	}
	data := mixedData(size, 5)
	for _, id := range []byte{CheckNone, CheckCRC32, CheckCRC64, CheckSHA256} {
		stream := compress(t, data, WriterConfig{Check: id, BlockSize: block}, 0)
		if stream[7] != id {
			t.Fatalf("check %#x: stream flags say %#x", id, stream[7])
		}
		checkDecodes(t, stream, data)
		if path, err := exec.LookPath("xz"); err == nil {
			cmd := exec.Command(path, "-t")
			cmd.Stdin = bytes.NewReader(stream)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("check %#x: xz -t: %v %s", id, err, out)
			}
			// A flipped byte in the last block's check must be caught.
			bad := append([]byte(nil), stream...)
			if id != CheckNone {
				// The check sits before the index; find it from the footer's
				// backward size.
				idxSize := (int(bad[len(bad)-8]) + 1) * 4
				bad[len(bad)-streamFooterSize-idxSize-1] ^= 1
				cmd := exec.Command(path, "-t")
				cmd.Stdin = bytes.NewReader(bad)
				if err := cmd.Run(); err == nil {
					t.Fatalf("check %#x: xz -t accepted a corrupted check", id)
				}
			}
		}
	}
}

// TestDeterministic: the bytes depend on the data and the config, not on the
// worker count or how Write is called.
func TestDeterministic(t *testing.T) {
	slow(t)
	// The short last block gets a small match finder with 8 workers and the
	// first block's full-size one with 1. Seven blocks (six full, one short)
	// of 128 KiB, whose window is the smallest (minWindow) as 256 KiB's is.
	data := mixedData(3<<18+12345, 6)
	cfg := WriterConfig{BlockSize: 128 << 10, Check: CheckCRC64}
	want := compress(t, data, cfg, 0)
	checkDecodes(t, want, data)
	for _, workers := range []int{1, 2, 3, 8} {
		for _, piece := range []int{0, 1000, 128 << 10, 277777} {
			cfg.Workers = workers
			if got := compress(t, data, cfg, piece); !bytes.Equal(got, want) {
				t.Fatalf("workers %d, writes of %d: output differs", workers, piece)
			}
		}
	}
}

// TestNoLeakWithoutClose: workers end on their own when Close never comes.
// It waits for the block goroutines themselves, found by their stacks, rather
// than for the process's goroutine count to come back: other tests' goroutines
// make that count move, and under -race encoding a block takes many times
// longer than the fixed wait that count was given (it failed once so).
func TestNoLeakWithoutClose(t *testing.T) {
	w, err := NewWriter(io.Discard, WriterConfig{BlockSize: 64 << 10, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(mixedData(256<<10, 7)) // four blocks, one a worker
	if len(w.pending) == 0 {
		t.Fatal("no block started: the test writes too little")
	}
	// Every block ends (its done channel closes) without Close; the wait is
	// long because a block may encode slowly, never because one may not end.
	for i, j := range w.pending {
		select {
		case <-j.done:
		case <-time.After(5 * time.Minute):
			t.Fatalf("block %d of %d not done after 5 minutes", i, len(w.pending))
		}
	}
	// And its goroutine returns: none of this package's block goroutines is left
	// (another test's unclosed writer may still be encoding: it ends too).
	for range 12000 {
		if blockGoroutines() == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d block goroutines still running 2 minutes after every block was done", blockGoroutines())
}

// blockGoroutines counts the goroutines running a Writer's worker.
func blockGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), ".(*Writer).work(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestErrors(t *testing.T) {
	if _, err := NewWriter(io.Discard, WriterConfig{Check: 2}); err == nil {
		t.Error("check ID 2 accepted")
	}
	if _, err := NewWriter(io.Discard, WriterConfig{BlockSize: -1}); err == nil {
		t.Error("negative block size accepted")
	}
	if _, err := NewWriter(&failWriter{}, WriterConfig{}); err == nil {
		t.Error("failed header write not reported")
	}
	w, err := NewWriter(&failWriter{n: 100}, WriterConfig{BlockSize: 64 << 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	data := mixedData(1<<20, 8)
	_, werr := w.Write(data)
	cerr := w.Close()
	if werr == nil && cerr == nil {
		t.Error("write error of the underlying writer not reported")
	}
	if _, err := w.Write(data); err == nil {
		t.Error("Write after Close accepted")
	}
}

// slow skips a test of megabytes of data under -short: the inner loop keeps the
// small cases (rules, truncation, shapes); the full suite and CI run these.
func slow(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("megabytes of data: run in the full suite")
	}
}

// TestInPlace: a block's LZMA2 data is written over its own input, which
// the gap of gapFor keeps behind the bytes the encoder still reads, on the
// data that runs it closest (random bytes stored as they come, data that
// barely compresses, mixed): the data is the same as with input and output
// apart. A gap without the window's room is caught before the input is
// overwritten.
func TestInPlace(t *testing.T) {
	const n = 1 << 19
	rng := randomBytes(n, 31)
	noisy := make([]byte, n)
	for i, c := range rng {
		noisy[i] = c & 0x7F
	}
	enc := newBlockEncoder(windowFor(n), windowFor(n))
	encodeAt := func(d []byte, gap int) []byte {
		mem := make([]byte, gap+n)
		copy(mem[gap:], d)
		return enc.encode(mem, gap, n)
	}
	for _, d := range [][]byte{rng, noisy, mixedData(n, 32)} {
		apart := bytes.Clone(encodeAt(d, 2*n))
		if got := encodeAt(d, gapFor(n, enc.window)); !bytes.Equal(got, apart) {
			t.Fatalf("in place: %d bytes, apart %d, not the same", len(got), len(apart))
		}
		short := gapFor(n, enc.window) - enc.window
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("a gap of %d bytes for a %d-byte window was not caught", short, enc.window)
				}
			}()
			encodeAt(d, short)
		}()
	}
}
