package xz

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestTruncated cuts streams at every offset (the committed multi-block
// file at every 7th and near both ends): each cut is an *Error, never a
// panic or a clean end.
func TestTruncated(t *testing.T) {
	want, lz := aaaa()
	text := []byte("uncompressed chunk text")
	small := buildStream(CheckCRC64,
		testBlock{lzma2: append(lz, chunkEnd), content: want},
		testBlock{lzma2: append(copyChunk(chunkCopyResetDict, text), chunkEnd), content: text, sizes: true})
	blocks, err := os.ReadFile("testdata/dec_mixed_blocks.xz")
	if err != nil {
		t.Fatal(err)
	}
	// Every cut in the first and last 300 bytes (headers, index, footer);
	// in a long stream's compressed middle, every 7th (every 61st in -short).
	every := 7
	if testing.Short() {
		every = 61
	}
	for _, z := range [][]byte{small, blocks} {
		for cut := range len(z) {
			if z == nil || len(z) > 1000 && cut%every != 0 && cut > 300 && cut < len(z)-300 {
				continue
			}
			for _, c := range configs {
				_, err := decodeAll(z[:cut], c.cfg)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("cut at %d of %d, %s: error %v, want an *Error", cut, len(z), c.name, err)
				}
			}
		}
	}
}

// zerosChunk is xz's first LZMA2 chunk for a run of zeros, with its
// control byte made a state reset that keeps the dictionary, so that it
// can be repeated: each copy inflates a few hundred bytes to up to 2 MiB.
func zerosChunk(t *testing.T) (chunk []byte, unpacked int) {
	z := xzCompress(t, make([]byte, 4<<20), "-0", "--check=none")
	d := z[12+int(z[12]+1)*4:]
	c := parseChunk(d[:chunkHeaderLen(d[0])])
	if c.ctrl&0xE0 != 0xE0 {
		t.Fatalf("xz's first chunk has control 0x%02x", c.ctrl)
	}
	chunk = append([]byte{0xA0 | d[0]&0x1F}, d[1:5]...)
	return append(chunk, d[6:6+c.packed]...), c.unpacked
}

// TestBoundedMemory: a block that claims 4 GiB and an xz bomb (1 GiB of
// zeros from about 200 KiB; 256 MiB in -short) are decoded in a window, not a
// buffer of their size.
func TestBoundedMemory(t *testing.T) {
	chunk, n := zerosChunk(t)
	total := int64(1 << 30)
	if testing.Short() {
		total = 256 << 20
	}
	first := append(copyChunk(chunkCopyResetDict, []byte{0}), 0xC0|chunk[0]&0x1F)
	first = append(append(first, chunk[1:5]...), defaultProps.byte())
	lz := append(first, chunk[5:]...)
	size := int64(1 + n)
	for ; size+int64(n) <= total; size += int64(n) {
		lz = append(lz, chunk...)
	}
	lz = append(lz, chunkEnd)
	hdr := putVarint([]byte{0, 0xC0}, uint64(len(lz)))
	hdr = putVarint(hdr, 4<<30) // declared: 4 GiB
	claims := buildStream(CheckNone, testBlock{lzma2: lz, n: size, header: sealHeader(append(hdr, filterLZMA2, 1, 18))})
	bomb := buildStream(CheckNone, testBlock{lzma2: lz, n: size, sizes: true})
	t.Logf("%d bytes inflate to %d", len(bomb), size)

	for _, c := range []struct {
		name  string
		z     []byte
		limit int64 // the caller's limit
		msg   string
	}{
		{"4 GiB claimed", claims, total, "block decodes to"},
		{"bomb, read whole", bomb, total, ""},
		{"bomb, caller stops at 100 MiB", bomb, 100 << 20, ""},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := NewReader(bytes.NewReader(c.z), ReaderConfig{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.Copy(io.Discard, io.LimitReader(struct{ io.Reader }{r}, c.limit))
		runtime.ReadMemStats(&after)
		if c.msg != "" {
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.msg)) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
			}
		} else if err != nil || got != min(c.limit, size) {
			t.Errorf("%s: read %d bytes, %v", c.name, got, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes out, %d bytes allocated, heap in use %d", c.name, got, alloc, after.HeapInuse)
		if alloc > 8<<20 || after.HeapInuse > 64<<20 {
			t.Errorf("%s: allocated %d bytes, heap in use %d", c.name, alloc, after.HeapInuse)
		}
	}
}

// FuzzReader: no input panics or hangs; the streaming and the parallel path
// agree on what decodes.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/dec_*.xz")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	want, lz := aaaa()
	f.Add(buildStream(CheckCRC32, testBlock{lzma2: append(lz, chunkEnd), content: want, sizes: true}))
	f.Add(buildStream(CheckNone, testBlock{lzma2: append(lz, chunkEnd), content: want}))
	f.Fuzz(func(t *testing.T, z []byte) {
		var outs [2][]byte
		var errs [2]error
		for i, cfg := range []ReaderConfig{{MaxDict: 1 << 20, MaxMemory: 1}, {MaxDict: 1 << 20, MaxMemory: 4 << 20, Workers: 2}} {
			r, err := NewReader(bytes.NewReader(z), cfg)
			if err != nil {
				errs[i] = err
				continue
			}
			var out bytes.Buffer
			_, errs[i] = io.Copy(&out, io.LimitReader(struct{ io.Reader }{r}, 8<<20))
			outs[i] = out.Bytes()
		}
		if errs[0] == nil && errs[1] == nil && !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("streaming and parallel decode differ")
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("streaming error %v, parallel error %v", errs[0], errs[1])
		}
	})
}
