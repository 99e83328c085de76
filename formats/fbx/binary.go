package fbx

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"

	"github.com/bonebake/bonebake/formats"
)

// deflateRatio is the most a deflate stream can expand (RFC 1951: a
// 258-byte match costs at least 2 bits, about 1032:1); with zlib's few bytes of
// framing it bounds what a compressed array's declared length may claim.
const deflateRatio = 1032

type binReader struct {
	b       []byte
	file    string
	wide    bool  // 64-bit record headers (version ≥ 7500)
	budget  int64 // decoded bytes the file may still yield
	scratch bytes.Reader
	zr      io.ReadCloser
}

// parseBinary reads a binary FBX (docs/formats/fbx.md §2).
func parseBinary(b []byte, file string) (*File, error) {
	if len(b) < 27 {
		return nil, fail(file, formats.RuleTruncated, int64(len(b)), "file is %d bytes; a binary FBX header alone is 27", len(b))
	}
	v := int(binary.LittleEndian.Uint32(b[23:]))
	if err := checkVersion(file, v, 23); err != nil {
		return nil, err
	}
	r := &binReader{b: b, file: file, wide: v >= 7500, budget: decodedLimit(len(b))}
	nodes, _, err := r.list(27, uint64(len(b)), 0, true)
	if err != nil {
		return nil, err
	}
	return &File{Name: file, Version: v, Binary: true, Nodes: nodes}, nil
}

func (r *binReader) headerSize() uint64 {
	if r.wide {
		return 25
	}
	return 13
}

// list reads node records from pos up to end, until a null record (which
// top-level lists must have; a child list may instead end exactly at end).
func (r *binReader) list(pos, end uint64, depth int, top bool) ([]*Node, uint64, error) {
	if depth > MaxDepth {
		return nil, pos, fail(r.file, RuleDepth, int64(pos), "nodes nest deeper than %d levels", MaxDepth)
	}
	hs := r.headerSize()
	var nodes []*Node
	for {
		if pos == end && !top {
			return nodes, pos, nil
		}
		if end-pos < hs {
			what := "the node list's null record"
			if !top {
				what = "the parent's end offset"
			}
			return nil, pos, fail(r.file, formats.RuleTruncated, int64(pos), "%d bytes left before %s at %d; a node record's header is %d", end-pos, what, end, hs)
		}
		if isZero(r.b[pos : pos+hs]) {
			return nodes, pos + hs, nil
		}
		n, next, err := r.node(pos, end, depth)
		if err != nil {
			return nil, pos, err
		}
		nodes = append(nodes, n)
		pos = next
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// node reads the record at pos, which must end by limit.
func (r *binReader) node(pos, limit uint64, depth int) (*Node, uint64, error) {
	le := binary.LittleEndian
	var endOff, numProps, propLen uint64
	var nameLen uint64
	if r.wide {
		endOff, numProps, propLen = le.Uint64(r.b[pos:]), le.Uint64(r.b[pos+8:]), le.Uint64(r.b[pos+16:])
		nameLen = uint64(r.b[pos+24])
	} else {
		endOff, numProps, propLen = uint64(le.Uint32(r.b[pos:])), uint64(le.Uint32(r.b[pos+4:])), uint64(le.Uint32(r.b[pos+8:]))
		nameLen = uint64(r.b[pos+12])
	}
	start := pos + r.headerSize()
	if endOff <= pos || endOff > limit || endOff < start+nameLen {
		return nil, 0, fail(r.file, RuleNodeEnd, int64(pos), "node record's end offset %d lies outside %d…%d (its parent's or the file's end)", endOff, start+nameLen, limit)
	}
	n := &Node{Name: string(r.b[start : start+nameLen]), Offset: int64(pos)}
	p := start + nameLen
	if propLen > endOff-p {
		return nil, 0, fail(r.file, formats.RuleBounds, int64(pos), "node %q: its property list of %d bytes runs past the record's end at %d", n.Name, propLen, endOff)
	}
	if numProps > propLen/2 { // a property is at least a type code and a byte
		return nil, 0, fail(r.file, formats.RuleBounds, int64(pos), "node %q: %d properties cannot fit in a property list of %d bytes", n.Name, numProps, propLen)
	}
	propEnd := p + propLen
	if numProps > 0 {
		n.Props = make([]Property, numProps)
	}
	for i := range n.Props {
		next, err := r.property(&n.Props[i], p, propEnd, n.Name)
		if err != nil {
			return nil, 0, err
		}
		p = next
	}
	if p != propEnd {
		return nil, 0, fail(r.file, formats.RuleBounds, int64(p), "node %q: its properties end at %d, but the record says %d", n.Name, p, propEnd)
	}
	if p < endOff {
		kids, next, err := r.list(p, endOff, depth+1, false)
		if err != nil {
			return nil, 0, err
		}
		if next != endOff {
			return nil, 0, fail(r.file, RuleNodeEnd, int64(pos), "node %q: its children end at %d, but the record says %d", n.Name, next, endOff)
		}
		n.Children = kids
	}
	return n, endOff, nil
}

func elemSize(t byte) uint64 {
	switch t {
	case 'f', 'i':
		return 4
	case 'd', 'l':
		return 8
	case 'b':
		return 1
	}
	return 0
}

// property reads the property at p, which must end by end.
func (r *binReader) property(pr *Property, p, end uint64, node string) (uint64, error) {
	le := binary.LittleEndian
	need := func(n uint64, what string) error {
		if end-p < n {
			return fail(r.file, formats.RuleBounds, int64(p), "node %q: %s of %d bytes runs past its property list's end at %d", node, what, n, end)
		}
		return nil
	}
	if err := need(1, "a property's type code"); err != nil {
		return 0, err
	}
	t := r.b[p]
	at := p
	p++
	pr.Type = t
	scalar := map[byte]uint64{'Y': 2, 'C': 1, 'I': 4, 'F': 4, 'D': 8, 'L': 8}
	if sz, ok := scalar[t]; ok {
		if err := need(sz, "a "+string(t)+" property"); err != nil {
			return 0, err
		}
		v := r.b[p : p+sz]
		switch t {
		case 'Y':
			pr.Int = int64(int16(le.Uint16(v)))
		case 'C':
			pr.Int = int64(v[0] & 1)
		case 'I':
			pr.Int = int64(int32(le.Uint32(v)))
		case 'F':
			pr.Float = float64(math.Float32frombits(le.Uint32(v)))
		case 'D':
			pr.Float = math.Float64frombits(le.Uint64(v))
		case 'L':
			pr.Int = int64(le.Uint64(v))
		}
		return p + sz, nil
	}
	switch t {
	case 'S', 'R':
		if err := need(4, "a string's length"); err != nil {
			return 0, err
		}
		n := uint64(le.Uint32(r.b[p:]))
		p += 4
		if err := need(n, "a string"); err != nil {
			return 0, err
		}
		if t == 'S' {
			pr.String = string(r.b[p : p+n])
		} else {
			pr.Raw = bytes.Clone(r.b[p : p+n])
		}
		return p + n, nil
	case 'f', 'd', 'l', 'i', 'b':
		if err := need(12, "an array's header"); err != nil {
			return 0, err
		}
		count, enc, clen := uint64(le.Uint32(r.b[p:])), le.Uint32(r.b[p+4:]), uint64(le.Uint32(r.b[p+8:]))
		p += 12
		size := count * elemSize(t)
		if err := need(clen, "an array"); err != nil {
			return 0, err
		}
		data := r.b[p : p+clen]
		switch enc {
		case 0:
			if clen != size {
				return 0, fail(r.file, RuleArray, int64(at), "node %q: a raw %c array of %d elements is %d bytes, but its length field says %d", node, t, count, size, clen)
			}
		case 1:
			if size > clen*deflateRatio+64 {
				return 0, fail(r.file, RuleArray, int64(at), "node %q: a %c array declares %d elements (%d bytes) from %d compressed bytes, more than deflate can expand to (%d:1)", node, t, count, size, clen, deflateRatio)
			}
			if int64(size) > r.budget {
				return 0, fail(r.file, RuleDecoded, int64(at), "node %q: a %c array of %d bytes would take the file's decoded arrays past %d bytes (%d× its size, docs/formats/fbx.md §4)", node, t, size, decodedLimit(len(r.b)), DecodedFactor)
			}
			r.budget -= int64(size)
			out, err := r.inflate(data, size)
			if err != nil {
				return 0, fail(r.file, RuleZlib, int64(at), "node %q: a %c array of %d elements: %v", node, t, count, err)
			}
			data = out
		default:
			return 0, fail(r.file, RuleArray, int64(at+5), "node %q: array encoding %d; FBX has 0 (raw) and 1 (zlib)", node, enc)
		}
		decodeArray(pr, t, data, count)
		return p + clen, nil
	}
	return 0, fail(r.file, RulePropertyType, int64(at), "node %q: property type code 0x%02x (%q) is none of FBX's Y C I F D L f d l i b S R", node, t, t)
}

// inflate decodes a zlib stream into exactly size bytes, reading no more than
// that: a stream that would give more or fewer is refused.
func (r *binReader) inflate(comp []byte, size uint64) ([]byte, error) {
	r.scratch.Reset(comp)
	// One decompressor serves every array: its window is reset, not made again.
	if r.zr == nil {
		zr, err := zlib.NewReader(&r.scratch)
		if err != nil {
			return nil, err
		}
		r.zr = zr
	} else if err := r.zr.(zlib.Resetter).Reset(&r.scratch, nil); err != nil {
		return nil, err
	}
	zr := r.zr
	out := make([]byte, size)
	if n, err := io.ReadFull(zr, out); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, errorf("inflates to %d bytes, not the %d declared", n, size)
		}
		return nil, err
	}
	var one [1]byte
	if n, _ := zr.Read(one[:]); n > 0 {
		return nil, errorf("inflates to more than the %d bytes declared", size)
	}
	return out, nil
}

func decodeArray(pr *Property, t byte, data []byte, count uint64) {
	le := binary.LittleEndian
	switch t {
	case 'f':
		pr.Floats = make([]float64, count)
		for i := range pr.Floats {
			pr.Floats[i] = float64(math.Float32frombits(le.Uint32(data[4*i:])))
		}
	case 'd':
		pr.Floats = make([]float64, count)
		for i := range pr.Floats {
			pr.Floats[i] = math.Float64frombits(le.Uint64(data[8*i:]))
		}
	case 'i':
		pr.Ints = make([]int64, count)
		for i := range pr.Ints {
			pr.Ints[i] = int64(int32(le.Uint32(data[4*i:])))
		}
	case 'l':
		pr.Ints = make([]int64, count)
		for i := range pr.Ints {
			pr.Ints[i] = int64(le.Uint64(data[8*i:]))
		}
	case 'b':
		pr.Ints = make([]int64, count)
		for i := range pr.Ints {
			pr.Ints[i] = int64(data[i] & 1)
		}
	}
}
