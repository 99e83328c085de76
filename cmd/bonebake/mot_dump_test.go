package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/mot"
)

// keyedMotion is a 2.7 KB little-endian Bayonetta 2 motion of n type 4 records
// of 65,535 frames, every record using one block of 100 float keys.
func keyedMotion(t *testing.T, n int) string {
	le := binary.LittleEndian
	const frames, keys = 65535, 100
	b := make([]byte, mot.Bayo2Header)
	copy(b, mot.Magic)
	le.PutUint32(b[4:], mot.Bayo2Tag)
	le.PutUint16(b[10:], frames)
	le.PutUint32(b[12:], mot.Bayo2Header)
	le.PutUint32(b[16:], uint32(n))
	b[0x15] = 0x3c
	block := mot.Bayo2Header + mot.RecordSize*(n+1)
	for i := range n {
		r := make([]byte, mot.RecordSize)
		le.PutUint16(r, uint16(i))
		r[3] = 4
		le.PutUint16(r[4:], keys)
		le.PutUint32(r[8:], uint32(block-len(b)))
		b = append(b, r...)
	}
	term := make([]byte, mot.RecordSize)
	le.PutUint16(term, mot.TerminatorBone)
	b = append(b, term...)
	for k := range keys {
		key := make([]byte, 16)
		le.PutUint16(key, uint16(k*600))
		le.PutUint32(key[4:], uint32(k)<<20)
		b = append(b, key...)
	}
	path := filepath.Join(t.TempDir(), "keyed.mot")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// heapWatcher counts what is written and the largest live heap seen meanwhile.
type heapWatcher struct {
	n    int
	peak uint64
	tail []byte
}

func (h *heapWatcher) Write(b []byte) (int, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.peak = max(h.peak, ms.HeapAlloc)
	h.n += len(b)
	h.tail = append(h.tail[:0], b[max(0, len(b)-16):]...)
	return len(b), nil
}

// TestMotDumpStreams: mot dump holds one record's values, not all of them nor
// the whole JSON: 40 records × 65,535 frames (2.6 M values, 80 MB of JSON)
// used to grow the heap by 155 MB.
func TestMotDumpStreams(t *testing.T) {
	records := 40
	if testing.Short() {
		records = 20 // 40 MB of JSON: a dump held whole would still grow the heap past the bound
	}
	path := keyedMotion(t, records)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var out heapWatcher
	var errOut strings.Builder
	if code := run([]string{"mot", "dump", path, "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasSuffix(string(out.tail), "\n  ]\n}\n") || out.n < records<<20 {
		t.Fatalf("wrote %d bytes ending %q", out.n, out.tail)
	}
	if grew := int64(out.peak) - int64(ms.HeapAlloc); grew > 32<<20 {
		t.Errorf("the live heap grew by %d MB while dumping %d MB", grew>>20, out.n>>20)
	}
}
