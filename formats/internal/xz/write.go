package xz

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
)

// WriterConfig chooses a Writer's integrity check and parallelism.
type WriterConfig struct {
	Check     byte // CheckNone (default), CheckCRC32, CheckCRC64 or CheckSHA256
	BlockSize int  // uncompressed bytes per independent block; 0: DefaultBlockSize
	Workers   int  // blocks compressed at once; 0: GOMAXPROCS
	// Written, when not nil, is told each block's uncompressed size once the
	// block is compressed and written, on the goroutine calling Write or
	// Close: a progress report per block, not per byte.
	Written func(n int)
}

// The block size sets ratio and memory: each block is compressed with a
// window (dictionary) of a quarter block. Each worker holds a bt4 match
// finder of 8 bytes a window byte plus 2.3 MiB of hash heads, and the Writer
// holds twice as many blocks as workers (blockMemory each: the block, and a
// gap of a window for its compressed form, written over it in place). With 4
// MiB blocks that is 10.3 MiB a worker and 5 MiB a block, 40.9 MiB for two
// workers. Larger windows find longer repeats and larger blocks lose less
// to their independent starts. On the pack benchmark's 64 MiB of mixed data
// (BenchmarkWriterMixed64): 4 MiB blocks give 0.6058 of the input; 8 MiB
// blocks (2 MiB window) 0.5994 at twice the memory; xz -6 with 8 MiB windows
// in 24 MiB blocks 0.596.
const (
	DefaultBlockSize = 4 << 20
	maxBlockSize     = 1 << 30 // match-finder positions are 32 bits
	minWindow        = 1 << 16
)

// windowFor is the match window of blocks of blockSize bytes.
func windowFor(blockSize int) int { return max(blockSize/4, minWindow) }

// gapFor is the room kept before a block buffer of n bytes so that its
// LZMA2 data, written from the buffer's start as the block is compressed,
// stays behind the bytes the encoder still reads (those within its window,
// at most n, of the position it codes). Beyond the window, the data runs at
// most 6 bytes a chunk ahead of the input (an LZMA chunk is kept only when
// smaller than its input, and holds at least 48 KiB of it unless it is the
// last; stored chunks cost 3 bytes a 64 KiB), well within n/1024 + 4 KiB.
func gapFor(n, window int) int { return min(window, n) + n>>10 + 4096 }

// Writer compresses into an .xz stream of independent LZMA2 blocks, each
// header carrying its sizes. Blocks are compressed by up to Workers
// goroutines at once, each taking the next block as soon as it finishes one,
// and written in order; the bytes written do not depend on Workers.
type Writer struct {
	w         io.Writer
	check     byte
	blockSize int
	workers   int
	slots     int // blocks held at once: filling, compressing or waiting to be written
	window    int
	written   func(n int)

	cur     *blockJob   // the block being filled
	free    []*blockJob // written blocks whose memory is reused
	pending []*blockJob // submitted, oldest first
	index   []byte      // the index's records so far
	records uint64
	err     error
	closed  bool

	// The workers' queue: blocks submitted and not yet taken, the number of
	// workers running and the encoders none of them holds.
	mu      sync.Mutex
	queue   []*blockJob
	running int
	idle    []*blockEncoder
	wg      sync.WaitGroup
}

// blockJob is one block: its input, and once done its encoded form.
type blockJob struct {
	mem       []byte // the input at mem[gap:gap+n]; the LZMA2 data from mem[0] once done
	gap, n    int
	check     byte
	window    int // the stream's window, declared in the header
	encWindow int // the window of the encoder it needs
	header    []byte
	data      []byte // LZMA2 data, in mem
	tail      []byte // block padding and check
	sum       []byte // the check
	done      chan struct{}
}

var errClosed = errors.New("xz: write to a closed Writer")

// NewWriter writes the stream header to w and returns a Writer for the
// blocks that follow.
func NewWriter(w io.Writer, cfg WriterConfig) (*Writer, error) {
	switch cfg.Check {
	case CheckNone, CheckCRC32, CheckCRC64, CheckSHA256:
	default:
		return nil, errors.New("xz: unsupported check ID")
	}
	if cfg.BlockSize < 0 || cfg.BlockSize > maxBlockSize {
		return nil, errors.New("xz: block size out of range")
	}
	if cfg.Workers < 0 {
		return nil, errors.New("xz: negative worker count")
	}
	z := &Writer{w: w, check: cfg.Check, blockSize: cfg.BlockSize, workers: cfg.Workers, written: cfg.Written}
	if z.blockSize == 0 {
		z.blockSize = DefaultBlockSize
	}
	z.window = windowFor(z.blockSize)
	if z.workers == 0 {
		z.workers = runtime.GOMAXPROCS(0)
	}
	// Twice as many blocks as workers, as xz -T keeps: a worker that finishes
	// a quick block (stored random data) takes the next one while an older,
	// slower one is still compressing, instead of waiting for it to be
	// written first.
	z.slots = 2 * z.workers
	h := append([]byte(headerMagic), 0, z.check)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h[6:8]))
	if err := z.put(h); err != nil {
		return nil, err
	}
	return z, nil
}

func (z *Writer) put(b []byte) error {
	if z.err != nil {
		return z.err
	}
	n, err := z.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	z.err = err
	return err
}

// Write buffers p into blocks, handing each full block to the workers. It
// waits when the Writer holds as many blocks as it may.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, errClosed
	}
	n := 0
	for len(p) > 0 {
		if z.err != nil {
			return n, z.err
		}
		if z.cur == nil {
			z.cur = z.takeBlock()
		}
		j := z.cur
		k := min(len(p), z.blockSize-j.n)
		if j.gap+j.n+k > len(j.mem) {
			// The first buffer grows by doubling up to the block size, so a
			// short stream does not take a whole block; once a block has
			// been filled, new buffers are whole at once.
			c := min(z.blockSize, max(2*(len(j.mem)-j.gap), j.n+k, 64<<10))
			if z.records > 0 || len(z.pending) > 0 {
				c = z.blockSize
			}
			gap := gapFor(c, z.window)
			mem := make([]byte, gap+c)
			copy(mem[gap:], j.mem[j.gap:j.gap+j.n])
			j.mem, j.gap = mem, gap
		}
		copy(j.mem[j.gap+j.n:], p[:k])
		j.n += k
		n += k
		p = p[k:]
		if j.n == z.blockSize {
			z.submit()
		}
	}
	return n, z.err
}

// takeBlock returns an empty block, once the oldest is written if the
// Writer holds all it may.
func (z *Writer) takeBlock() *blockJob {
	z.writeDone()
	for len(z.pending) >= z.slots {
		z.finishOldest()
	}
	full := gapFor(z.blockSize, z.window) + z.blockSize
	for len(z.free) > 0 {
		j := z.free[len(z.free)-1]
		z.free = z.free[:len(z.free)-1]
		if len(j.mem) == full { // not a short first block's
			j.n = 0
			return j
		}
	}
	// One a closed Writer left, when its size fits; else one that Write
	// grows.
	if j, ok := blocks.Get().(*blockJob); ok && len(j.mem) == full {
		j.n = 0
		return j
	}
	return &blockJob{}
}

// blocks holds the whole blocks of closed Writers, so that the sections of
// a package, each a stream, reuse the same memory.
var blocks sync.Pool

// submit queues the block being filled for the workers, starting one if
// fewer than Workers run.
func (z *Writer) submit() {
	j := z.cur
	z.cur = nil
	// A short block gets a match finder of its size: with the window no
	// smaller than the block and the same hash heads, it finds the same
	// matches as a full one.
	w := z.window
	for w/2 >= j.n && w/2 >= minWindow {
		w /= 2
	}
	j.check, j.window, j.encWindow = z.check, z.window, w
	j.done = make(chan struct{})
	z.pending = append(z.pending, j)
	z.mu.Lock()
	z.queue = append(z.queue, j)
	var enc *blockEncoder
	start := z.running < z.workers
	if start {
		z.running++
		if k := len(z.idle); k > 0 {
			enc = z.idle[k-1]
			z.idle = z.idle[:k-1]
		}
	}
	z.mu.Unlock()
	if start {
		z.wg.Add(1)
		go z.work(enc)
	}
	z.writeDone()
}

// work compresses queued blocks, oldest first, until none is left; enc is
// the encoder it starts with (nil: it takes one).
func (z *Writer) work(enc *blockEncoder) {
	defer z.wg.Done()
	for {
		z.mu.Lock()
		if len(z.queue) == 0 {
			if enc != nil {
				z.idle = append(z.idle, enc)
			}
			z.running--
			z.mu.Unlock()
			return
		}
		j := z.queue[0]
		z.queue = z.queue[1:]
		z.mu.Unlock()
		if enc == nil || enc.window < j.encWindow {
			enc = takeEncoder(j.encWindow, j.window)
		}
		j.run(enc)
	}
}

// encoders holds the encoders of closed Writers: a stream of a short
// section then costs no match-finder allocation.
var encoders sync.Pool

// takeEncoder returns an encoder whose window holds at least window bytes
// and whose hash heads are those of fullWindow.
func takeEncoder(window, fullWindow int) *blockEncoder {
	if e, ok := encoders.Get().(*blockEncoder); ok && e.window >= window && e.fullWindow == fullWindow {
		return e
	}
	return newBlockEncoder(window, fullWindow)
}

// writeDone writes the oldest blocks as long as they are done.
func (z *Writer) writeDone() {
	for len(z.pending) > 0 {
		select {
		case <-z.pending[0].done:
			z.finishOldest()
		default:
			return
		}
	}
}

// finishOldest waits for the oldest block and writes it.
func (z *Writer) finishOldest() {
	j := z.pending[0]
	<-j.done
	z.pending = z.pending[1:]
	if z.put(j.header) == nil && z.put(j.data) == nil && z.put(j.tail) == nil {
		unpadded := uint64(len(j.header) + len(j.data) + checkSize(j.check))
		z.index = putVarint(putVarint(z.index, unpadded), uint64(j.n))
		z.records++
		if z.written != nil {
			z.written(j.n)
		}
	}
	j.header, j.data, j.tail = j.header[:0], nil, j.tail[:0]
	z.free = append(z.free, j)
}

// run compresses the block with enc.
func (j *blockJob) run(enc *blockEncoder) {
	defer close(j.done)
	// The check first: compressing overwrites the input.
	j.sum = appendCheck(j.sum[:0], j.check, j.mem[j.gap:j.gap+j.n])
	j.data = enc.encode(j.mem, j.gap, j.n)
	h := []byte{0, 0xC0} // size, then flags: one filter, both sizes present
	h = putVarint(h, uint64(len(j.data)))
	h = putVarint(h, uint64(j.n))
	h = append(h, filterLZMA2, 1, dictByte(uint32(min(j.window, j.n))))
	for len(h)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte(len(h) / 4) // (size with the CRC)/4 - 1
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
	j.header = append(j.header[:0], h...)
	var pad [3]byte
	j.tail = append(j.tail[:0], pad[:(4-len(j.data)%4)%4]...)
	j.tail = append(j.tail, j.sum...)
}

// appendCheck appends the check of data that id names.
func appendCheck(b []byte, id byte, data []byte) []byte {
	h := newCheck(id)
	if h == nil {
		return b
	}
	h.Write(data)
	return append(b, storedCheck(h)...)
}

// Close compresses what is buffered, waits for every block, and writes the
// index and the stream footer. It does not close the underlying writer.
func (z *Writer) Close() error {
	if z.closed {
		return z.err
	}
	z.closed = true
	if z.cur != nil && z.cur.n > 0 {
		z.submit()
	}
	for len(z.pending) > 0 {
		z.finishOldest()
	}
	z.wg.Wait()
	for _, e := range z.idle {
		encoders.Put(e)
	}
	full := gapFor(z.blockSize, z.window) + z.blockSize
	for _, j := range z.free {
		if len(j.mem) == full {
			blocks.Put(j)
		}
	}
	z.idle, z.free, z.cur = nil, nil, nil
	if z.err != nil {
		return z.err
	}
	idx := []byte{0}
	idx = putVarint(idx, z.records)
	idx = append(idx, z.index...)
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	f := make([]byte, 4, streamFooterSize)
	f = binary.LittleEndian.AppendUint32(f, uint32(len(idx)/4-1))
	f = append(f, 0, z.check)
	binary.LittleEndian.PutUint32(f, crc32.ChecksumIEEE(f[4:10]))
	f = append(f, footerMagic...)
	if z.put(idx) != nil {
		return z.err
	}
	return z.put(f)
}
