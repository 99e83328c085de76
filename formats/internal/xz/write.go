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
}

// The block size sets ratio and memory: each block is compressed with a
// window (dictionary) of a quarter block, and each worker holds one block of
// input, its compressed output (up to a block) and a bt4 match finder of
// 8 bytes a window byte plus 2.3 MiB of hash heads: 4*BlockSize + 2.3 MiB
// a worker. Larger windows find longer repeats and larger blocks lose less
// to their independent starts. On the pack benchmark's 64 MiB of mixed data
// (BenchmarkWriterMixed64): 4 MiB blocks give 0.6058 of the input
// in 18.3 MiB a worker, so two workers fit a 40 MiB budget; 8 MiB blocks
// (2 MiB window) 0.5994 in 34.3 MiB a worker; xz -6 with 8 MiB windows in
// 24 MiB blocks 0.596.
const (
	DefaultBlockSize = 4 << 20
	maxBlockSize     = 1 << 30 // match-finder positions are 32 bits
	minWindow        = 1 << 16
)

// windowFor is the match window of blocks of blockSize bytes.
func windowFor(blockSize int) int { return max(blockSize/4, minWindow) }

// Writer compresses into an .xz stream of independent LZMA2 blocks, each
// header carrying its sizes. Blocks are compressed by up to Workers
// goroutines at once and written in order; the bytes written do not depend
// on Workers.
type Writer struct {
	w         io.Writer
	check     byte
	blockSize int
	workers   int
	window    int

	buf     []byte      // the block being filled
	free    []*blockJob // finished jobs whose buffers and encoder are reused
	pending []*blockJob // compressing, oldest first
	index   []byte      // the index's records so far
	records uint64
	err     error
	closed  bool
}

// blockJob is one block: its input, and once done its encoded form.
type blockJob struct {
	in     []byte
	enc    *blockEncoder
	check  byte
	window int
	header []byte
	data   []byte // LZMA2 data: enc.out
	tail   []byte // block padding and check
	done   chan struct{}
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
	z := &Writer{w: w, check: cfg.Check, blockSize: cfg.BlockSize, workers: cfg.Workers}
	if z.blockSize == 0 {
		z.blockSize = DefaultBlockSize
	}
	z.window = windowFor(z.blockSize)
	if z.workers == 0 {
		z.workers = runtime.GOMAXPROCS(0)
	}
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

// Write buffers p into blocks, handing each full block to a worker. It waits
// when every worker is busy, so at most Workers blocks are held.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, errClosed
	}
	n := 0
	for len(p) > 0 {
		if z.err != nil {
			return n, z.err
		}
		if z.buf == nil {
			z.buf = z.takeBuffer()
		}
		k := min(len(p), z.blockSize-len(z.buf))
		if len(z.buf)+k > cap(z.buf) {
			// The first buffer grows by doubling up to the block size, so a
			// short stream does not take a whole block; once a block has
			// been filled, new buffers are whole at once.
			c := min(z.blockSize, max(2*cap(z.buf), len(z.buf)+k, 64<<10))
			if z.records > 0 || len(z.pending) > 0 {
				c = z.blockSize
			}
			b := make([]byte, len(z.buf), c)
			copy(b, z.buf)
			z.buf = b
		}
		z.buf = append(z.buf, p[:k]...)
		n += k
		p = p[k:]
		if len(z.buf) == z.blockSize {
			z.submit()
		}
	}
	return n, z.err
}

// takeBuffer returns an empty block buffer, once a worker's is free if all
// are in use.
func (z *Writer) takeBuffer() []byte {
	if len(z.pending) == z.workers {
		z.finishOldest()
	}
	if n := len(z.free); n > 0 {
		return z.free[n-1].in[:0]
	}
	return nil
}

func (z *Writer) submit() {
	var j *blockJob
	if n := len(z.free); n > 0 {
		j = z.free[n-1]
		z.free = z.free[:n-1]
	} else {
		j = &blockJob{}
	}
	// A short block gets a match finder of its size: with the window no
	// smaller than the block and the same hash heads, it finds the same
	// matches as a full one.
	w := z.window
	for w/2 >= len(z.buf) && w/2 >= minWindow {
		w /= 2
	}
	if j.enc == nil || j.enc.window < w {
		j.enc = takeEncoder(w, z.window)
	}
	j.in, j.check, j.window = z.buf, z.check, z.window
	j.done = make(chan struct{})
	z.buf = nil
	z.pending = append(z.pending, j)
	go j.run()
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

// finishOldest waits for the oldest block and writes it.
func (z *Writer) finishOldest() {
	j := z.pending[0]
	<-j.done
	z.pending = z.pending[1:]
	if z.put(j.header) == nil && z.put(j.data) == nil && z.put(j.tail) == nil {
		unpadded := uint64(len(j.header) + len(j.data) + checkSize(j.check))
		z.index = putVarint(putVarint(z.index, unpadded), uint64(len(j.in)))
		z.records++
	}
	j.header, j.data, j.tail = j.header[:0], nil, j.tail[:0]
	z.free = append(z.free, j)
}

func (j *blockJob) run() {
	defer close(j.done)
	j.data = j.enc.encode(j.in)
	h := []byte{0, 0xC0} // size, then flags: one filter, both sizes present
	h = putVarint(h, uint64(len(j.data)))
	h = putVarint(h, uint64(len(j.in)))
	h = append(h, filterLZMA2, 1, dictByte(uint32(min(j.window, len(j.in)))))
	for len(h)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte(len(h) / 4) // (size with the CRC)/4 - 1
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
	j.header = append(j.header[:0], h...)
	j.tail = append(j.tail[:0], make([]byte, (4-len(j.data)%4)%4)...)
	j.tail = appendCheck(j.tail, j.check, j.in)
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
	if len(z.buf) > 0 {
		z.submit()
	}
	for len(z.pending) > 0 {
		z.finishOldest()
	}
	for _, j := range z.free {
		encoders.Put(j.enc)
		j.enc = nil
	}
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
