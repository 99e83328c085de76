package xz

import (
	"bufio"
	"fmt"
	"hash"
	"io"
	"runtime"
)

// ReaderConfig bounds what a Reader allocates and how many blocks it
// decodes at once.
type ReaderConfig struct {
	MaxDict   uint32 // refuse a stream whose LZMA2 dictionary is larger (before allocating); 0 means 64 MiB
	Workers   int    // blocks decoded at once; 0 means GOMAXPROCS
	MaxMemory int    // bytes the parallel decoder may hold in flight; 0 means 32 MiB
}

// Reader decodes .xz streams (one or several, concatenated, with stream
// padding) into their uncompressed bytes.
//
// Blocks whose headers declare both sizes, and whose compressed plus
// uncompressed size fits MaxMemory, are read whole and decoded by up to
// Workers goroutines ahead of the caller, results in order; other blocks
// are decoded as the caller reads, with a window of their dictionary size
// (or their declared size, if smaller) plus one LZMA2 chunk. Every block
// goroutine ends by itself once its block is decoded, so a Reader needs no
// Close.
type Reader struct {
	in      input
	maxDict uint32
	workers int
	maxMem  int
	err     error // sticky: the first error, or io.EOF

	flags   [2]byte  // the current stream's flags
	check   byte     // its check ID
	records []record // its blocks so far, for the index
	hdrBuf  [1024]byte

	out, out2 []byte // decoded bytes not yet returned (out2 after out)

	// The parallel path.
	queue    []*job       // dispatched blocks, in stream order
	held     *blockHeader // read ahead, waiting for the queue to drain
	heldErr  error        // an error met while reading ahead
	inflight int          // bytes held by queued jobs and the one being returned
	current  int          // the part of inflight that is out's buffer

	// The streaming path: the block being decoded, if any.
	sb       *streamBlock
	win      []byte
	chunkBuf []byte
}

// NewReader returns a Reader of r; it reads the first stream header now.
func NewReader(r io.Reader, cfg ReaderConfig) (*Reader, error) {
	x := &Reader{
		in:      input{br: bufio.NewReaderSize(r, 1<<16)},
		maxDict: cfg.MaxDict,
		workers: cfg.Workers,
		maxMem:  cfg.MaxMemory,
	}
	if x.maxDict == 0 {
		x.maxDict = 64 << 20
	}
	if x.workers <= 0 {
		x.workers = runtime.GOMAXPROCS(0)
	}
	if x.maxMem <= 0 {
		x.maxMem = 32 << 20
	}
	var b [streamHeaderSize]byte
	if err := x.in.read(b[:]); err != nil {
		return nil, err
	}
	if err := x.startStream(b[:], 0); err != nil {
		return nil, err
	}
	return x, nil
}

// Read returns decoded bytes; io.EOF after the last stream.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(r.out) == 0 {
		if len(r.out2) > 0 {
			r.out, r.out2 = r.out2, nil
			break
		}
		if r.err != nil {
			return 0, r.err
		}
		r.err = r.fill()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// fill makes more decoded bytes ready, or moves to the next block or
// stream.
func (r *Reader) fill() error {
	r.inflight -= r.current
	r.current = 0
	if r.sb != nil {
		return r.streamChunk()
	}
	if len(r.queue) > 0 {
		j := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		res := <-j.done
		r.inflight -= j.mem
		if res.err != nil {
			return res.err
		}
		r.out = res.out
		r.current = len(res.out)
		r.inflight += r.current
		r.readAhead()
		return nil
	}
	h := r.held
	r.held = nil
	if h == nil {
		if r.heldErr != nil {
			return r.heldErr
		}
		var err error
		if h, err = r.readBlockHeader(); err != nil {
			return err
		}
	}
	if h.index {
		if err := r.readIndex(h.start); err != nil {
			return err
		}
		return r.nextStream()
	}
	if r.whole(h) {
		if err := r.dispatch(h); err != nil {
			return err
		}
		r.readAhead()
		return nil
	}
	return r.startBlock(h)
}

// The parallel path.

// job is a block being decoded by its own goroutine.
type job struct {
	mem  int
	done chan result // capacity 1: the goroutine never waits for the reader
}

type result struct {
	out []byte
	err error
}

// whole says whether block h is read whole and decoded in parallel.
func (r *Reader) whole(h *blockHeader) bool {
	return h.packed >= 0 && h.unpacked >= 0 &&
		h.packed <= int64(r.maxMem) && h.unpacked <= int64(r.maxMem) &&
		int(h.packed+h.unpacked) <= r.maxMem
}

// readAhead dispatches the following blocks while workers and memory allow.
func (r *Reader) readAhead() {
	for len(r.queue) < r.workers && r.held == nil && r.heldErr == nil {
		h, err := r.readBlockHeader()
		if err != nil {
			r.heldErr = err
			return
		}
		if h.index || !r.whole(h) || r.inflight+int(h.packed+h.unpacked) > r.maxMem {
			r.held = h
			return
		}
		if err := r.dispatch(h); err != nil {
			r.heldErr = err
			return
		}
	}
}

// dispatch reads block h's data, padding and check, and starts decoding it.
func (r *Reader) dispatch(h *blockHeader) error {
	packed := int(h.packed)
	pad := -packed & 3
	cs := checkSize(r.check)
	at := r.in.off
	data := make([]byte, packed+pad+cs)
	if err := r.in.read(data); err != nil {
		return err
	}
	j := &job{mem: int(h.packed + h.unpacked), done: make(chan result, 1)}
	r.inflight += j.mem
	r.queue = append(r.queue, j)
	r.records = append(r.records, record{int64(h.size) + h.packed + int64(cs), h.unpacked})
	check, dict, unpacked := r.check, h.dict, int(h.unpacked)
	go func() {
		out := make([]byte, unpacked)
		err := decodeBlock(data[:packed], out, dict, at)
		if err == nil {
			err = checkPadding(data[packed:packed+pad], at+int64(packed))
		}
		if err == nil {
			if c := newCheck(check); c != nil {
				c.Write(out)
				err = verifyCheck(c, data[packed+pad:], at+int64(packed+pad))
			}
		}
		if err != nil {
			out = nil
		}
		j.done <- result{out, err}
	}()
	return nil
}

// The streaming path.

// streamBlock is the block decoded as the caller reads.
type streamBlock struct {
	h      *blockHeader
	dec    lzma2Dec
	packed int64 // LZMA2 bytes read
	done   int64 // bytes decoded
	check  hash.Hash
}

// startBlock sets up the window for block h: its dictionary (or its
// declared size, if smaller) plus one chunk, a multiple of 16 bytes.
func (r *Reader) startBlock(h *blockHeader) error {
	size := int64(h.dict) + maxChunkUnpacked
	if h.unpacked >= 0 && h.unpacked < size {
		size = h.unpacked
	}
	size = (size + 15) &^ 15
	if size == 0 {
		size = 16
	}
	if int64(cap(r.win)) < size {
		r.win = nil
		r.win = make([]byte, size)
	}
	sb := &streamBlock{h: h, check: newCheck(r.check)}
	sb.dec.reset(h.dict, r.win[:size])
	r.sb = sb
	return nil
}

// streamChunk decodes the block's next LZMA2 chunk, or ends the block.
func (r *Reader) streamChunk() error {
	sb, h := r.sb, r.sb.h
	at := r.in.off
	ctrl, err := r.in.byte()
	if err != nil {
		return err
	}
	n := chunkHeaderLen(ctrl)
	if n == 0 {
		return &Error{at, fmt.Sprintf("LZMA2: invalid chunk control byte 0x%02x", ctrl)}
	}
	var hb [6]byte
	hb[0] = ctrl
	if err := r.in.read(hb[1:n]); err != nil {
		return err
	}
	sb.packed += int64(n)
	if h.packed >= 0 && sb.packed > h.packed {
		return &Error{at, "LZMA2 data runs past the block's declared compressed size"}
	}
	c := parseChunk(hb[:n])
	if c.ctrl == chunkEnd {
		r.sb = nil
		return r.endBlock(sb)
	}
	if msg := sb.dec.begin(c); msg != "" {
		return &Error{at, msg}
	}
	if h.unpacked >= 0 && sb.done+int64(c.unpacked) > h.unpacked {
		return &Error{at, fmt.Sprintf("block decodes to more than the %d bytes its header declares", h.unpacked)}
	}
	sb.packed += int64(c.packed)
	if h.packed >= 0 && sb.packed > h.packed {
		return &Error{at, "LZMA2 data runs past the block's declared compressed size"}
	}
	if cap(r.chunkBuf) < c.packed {
		r.chunkBuf = make([]byte, maxChunkPacked)
	}
	data := r.chunkBuf[:c.packed]
	if err := r.in.read(data); err != nil {
		return err
	}
	lz := &sb.dec.lz
	start := lz.pos
	if msg := sb.dec.data(c, data); msg != "" {
		return &Error{at, msg}
	}
	sb.done += int64(c.unpacked)
	if end := start + c.unpacked; end <= len(lz.win) {
		r.out = lz.win[start:end]
	} else {
		r.out, r.out2 = lz.win[start:], lz.win[:end-len(lz.win)]
	}
	if sb.check != nil {
		sb.check.Write(r.out)
		sb.check.Write(r.out2)
	}
	return nil
}

// endBlock checks the block's sizes, padding and check.
func (r *Reader) endBlock(sb *streamBlock) error {
	h := sb.h
	at := r.in.off
	if h.packed >= 0 && sb.packed != h.packed {
		return &Error{at, fmt.Sprintf("block's LZMA2 data is %d bytes, not its declared compressed size %d", sb.packed, h.packed)}
	}
	if h.unpacked >= 0 && sb.done != h.unpacked {
		return &Error{at, fmt.Sprintf("block decodes to %d bytes, its header declares %d", sb.done, h.unpacked)}
	}
	pad := int(-sb.packed & 3)
	cs := checkSize(r.check)
	var b [4 + 64]byte
	if err := r.in.read(b[:pad+cs]); err != nil {
		return err
	}
	if err := checkPadding(b[:pad], at); err != nil {
		return err
	}
	if err := verifyCheck(sb.check, b[pad:pad+cs], at+int64(pad)); err != nil {
		return err
	}
	r.records = append(r.records, record{int64(h.size) + sb.packed + int64(cs), sb.done})
	return nil
}
