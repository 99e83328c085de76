package xz

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// chunkStats is what an LZMA2 stream's chunk headers say, parsed here
// independently of the encoder.
type chunkStats struct {
	lzma, copies       int // chunks of each kind
	lzmaIn, copiedIn   int // uncompressed bytes they hold
	maxPacked, maxUnpk int
}

// parseChunks walks the LZMA2 data of every block of a single-stream .xz
// file, checking each chunk's control byte against LZMA2's rules.
func parseChunks(t *testing.T, stream []byte) chunkStats {
	t.Helper()
	var s chunkStats
	p := stream[streamHeaderSize:]
	for len(p) > 0 && p[0] != 0 { // a zero byte starts the index
		hsize := (int(p[0]) + 1) * 4
		csize, n, err := varint(p[2:])
		if err != nil || p[1]&0x40 == 0 {
			t.Fatalf("block header without compressed size")
		}
		_, m, _ := varint(p[2+n:])
		if p[2+n+m] != filterLZMA2 {
			t.Fatalf("filter %#x", p[2+n+m])
		}
		data := p[hsize : hsize+int(csize)]
		first, needProps := true, true
		for {
			c := data[0]
			if c == chunkEnd {
				if len(data) != 1 {
					t.Fatalf("%d bytes after the end marker", len(data)-1)
				}
				break
			}
			if first && c != chunkCopyResetDict && c < 0xE0 {
				t.Fatalf("first chunk %#x does not reset the dictionary", c)
			}
			first = false
			if c == chunkCopyResetDict || c == chunkCopy {
				size := int(binary.BigEndian.Uint16(data[1:])) + 1
				s.copies++
				s.copiedIn += size
				data = data[3+size:]
				continue
			}
			if c < 0x80 {
				t.Fatalf("bad control byte %#x", c)
			}
			if needProps && c < 0xC0 {
				t.Fatalf("LZMA chunk %#x without properties after a dictionary reset", c)
			}
			u := int(c&0x1F)<<16 + int(binary.BigEndian.Uint16(data[1:])) + 1
			pk := int(binary.BigEndian.Uint16(data[3:])) + 1
			h := 5
			if c >= 0xC0 {
				h, needProps = 6, false
			}
			s.lzma++
			s.lzmaIn += u
			s.maxPacked = max(s.maxPacked, pk)
			s.maxUnpk = max(s.maxUnpk, u)
			if pk >= u {
				t.Fatalf("LZMA chunk of %d bytes for %d: should have been stored", pk, u)
			}
			data = data[h+pk:]
		}
		p = p[hsize+(int(csize)+3)&^3+checkSize(stream[7]):]
	}
	return s
}

// TestRandomStored: random data is stored in uncompressed chunks, so it
// costs only their 3-byte headers and the container.
func TestRandomStored(t *testing.T) {
	data := randomBytes(3<<20, 11)
	stream := compress(t, data, WriterConfig{}, 0)
	checkDecodes(t, stream, data)
	s := parseChunks(t, stream)
	if s.lzma != 0 || s.copiedIn != len(data) {
		t.Fatalf("%+v: want every byte in uncompressed chunks", s)
	}
	if over := len(stream) - len(data); over > 3*(len(data)>>16+1)+64 {
		t.Fatalf("random %d bytes took %d", len(data), len(stream))
	}
	// Below the probe's size the LZMA coder runs and its chunk, no smaller
	// than the data, is replaced by an uncompressed one.
	small := randomBytes(40000, 12)
	stream = compress(t, small, WriterConfig{}, 0)
	checkDecodes(t, stream, small)
	if s := parseChunks(t, stream); s.lzma != 0 || s.copiedIn != len(small) {
		t.Fatalf("%+v: small random block not stored", s)
	}
}

// TestProbeRepeats: data the probe stores unsearched can be repeated later
// in the block, in stretches both the probe and the LZMA coder see; the
// stream must still decode, and what the coder sees twice it matches.
func TestProbeRepeats(t *testing.T) {
	r1 := randomBytes(200<<10, 13) // probed: stored, never inserted in the match finder
	r2 := randomBytes(20<<10, 14)  // too short for the probe among text
	text := mixedData(3<<20, 15)[:100<<10]
	var d []byte
	for range 3 {
		d = append(d, r1...)
		d = append(d, text...)
		d = append(d, r2...)
		d = append(d, text[:50<<10]...)
	}
	stream := compress(t, d, WriterConfig{}, 0)
	checkDecodes(t, stream, d)
	s := parseChunks(t, stream)
	// A chunk probes what follows its start: the random stretches that start
	// a chunk are stored, the rest falls into LZMA chunks with the text.
	if s.copiedIn < len(r1) {
		t.Errorf("%+v: the random stretches were not stored", s)
	}
	// r2 and the text repeat: only their first copies cost much.
	if limit := 3*len(r1) + len(r2) + len(text); len(stream) > limit {
		t.Errorf("compressed to %d, more than %d: repeats after stored data not matched", len(stream), limit)
	}
}

// TestChunkLimits: LZMA chunks stay within LZMA2's limits on data that
// compresses very well and on data that barely does. Zeros fill chunks to the
// 2 MiB unpacked limit, over a block boundary; the noisy and mixed data reach
// the 64 KiB packed limit every 100 KiB or so, so a megabyte or two of each
// makes dozens of chunks.
func TestChunkLimits(t *testing.T) {
	slow(t)
	zeros := make([]byte, 9<<20)
	rng := randomBytes(1<<20, 16)
	noisy := make([]byte, len(rng))
	for i, c := range rng {
		noisy[i] = c & 0x3F // 6 bits a byte: the probe lets it through
	}
	// Zeros reach a chunk's 2 MiB of unpacked data, the others its 64 KiB
	// packed (a mebibyte of mixed data makes many chunks).
	for _, d := range [][]byte{zeros, noisy, mixedData(1<<20, 17)} {
		stream := compress(t, d, WriterConfig{BlockSize: 8 << 20}, 0)
		checkDecodes(t, stream, d)
		s := parseChunks(t, stream)
		if s.lzmaIn+s.copiedIn != len(d) || s.maxPacked > maxChunkPacked || s.maxUnpk > maxChunkUnpacked {
			t.Fatalf("%+v for %d bytes", s, len(d))
		}
		if s.lzma == 0 {
			t.Fatalf("%+v: no LZMA chunk", s)
		}
		t.Logf("%d bytes: %+v", len(d), s)
	}
}

// TestMixedRatio guards compression quality on mixed data of the pack
// benchmark's kind: 8 MiB (seed 6, two default blocks), more compressible
// than the 64 MiB average, so that a worse match finder or parser shows.
// xz 5.4.1 -T1 gives 3345448 bytes (0.3988) with -6 (8 MiB window, one
// block) and 3476304 (0.41441) with our settings (--lzma2=preset=6,dict=1MiB
// --block-size=4MiB); this encoder measured 3476392 (0.41442). The bound
// leaves 0.1% for changes that trade ratio for speed. (It was 16 MiB of
// seed 1: 0.7062 with our settings in xz, bound 0.7070.)
func TestMixedRatio(t *testing.T) {
	slow(t)
	data := mixedData(8<<20, 6)
	stream := compress(t, data, WriterConfig{}, 0)
	checkDecodes(t, stream, data)
	ratio := float64(len(stream)) / float64(len(data))
	t.Logf("%d -> %d bytes, ratio %.5f", len(data), len(stream), ratio)
	if ratio > 0.4149 {
		t.Fatalf("ratio %.5f above 0.4149", ratio)
	}
	if !bytes.Equal(stream[:6], []byte(headerMagic)) {
		t.Fatal("no stream header")
	}
}

// TestShapes round-trips many small inputs of different make-up — tiny
// alphabets, runs, repeats at every distance, random tails — through
// small blocks, so that block ends, chunk ends and rep distances meet in
// many combinations.
func TestShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for i := range 300 {
		n := rng.IntN(1 << (4 + i%14))
		d := make([]byte, 0, n)
		alpha := 1 + rng.IntN(256)
		for len(d) < n {
			switch rng.IntN(4) {
			case 0: // literals from a small alphabet
				for k := rng.IntN(64); k > 0; k-- {
					d = append(d, byte(rng.IntN(alpha)))
				}
			case 1: // a run
				c := byte(rng.IntN(256))
				for k := rng.IntN(300); k > 0; k-- {
					d = append(d, c)
				}
			case 2, 3: // a copy from anywhere before
				if len(d) > 0 {
					from := rng.IntN(len(d))
					for k := 2 + rng.IntN(400); k > 0; k-- {
						d = append(d, d[from])
						from++
					}
				}
			}
		}
		d = d[:n]
		cfg := WriterConfig{BlockSize: 1 + rng.IntN(200<<10), Check: CheckCRC32, Workers: 1 + i%3}
		stream := compress(t, d, cfg, 1+rng.IntN(100<<10))
		r, err := uxz.NewReader(bytes.NewReader(stream))
		if err != nil {
			t.Fatalf("case %d (%d bytes, %+v): %v", i, n, cfg, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, d) {
			t.Fatalf("case %d (%d bytes, %+v): %v, decoded %d bytes that differ", i, n, cfg, err, len(got))
		}
		if i%10 == 0 {
			xzDecode(t, stream, d)
		}
	}
}
