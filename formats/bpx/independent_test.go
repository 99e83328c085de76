package bpx_test

// An independent reader of BPX packages written from docs/formats/bpx.md alone,
// sharing no code with package bpx: it checks what bpx.WritePackage writes.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/bonebake/bonebake/formats/bpx"

	"github.com/ulikunitz/xz"
)

type refSection struct {
	typ, flags byte
	data       []byte
}

// refCRC follows §4 literally: each table entry is one shift step of i.
func refCRC(b []byte) uint32 {
	crc := ^uint32(0)
	for _, c := range b {
		i := (crc ^ uint32(c)) & 0xFF
		t := i >> 1
		if i&1 == 1 {
			t ^= 0xEDB88320
		}
		crc = crc>>8 ^ t
	}
	return ^crc
}

func refParse(b []byte) (typ byte, ext []byte, secs []refSection, err error) {
	u32 := func(o int) uint32 { return binary.LittleEndian.Uint32(b[o:]) }
	if len(b) < 40 || string(b[:3]) != "BPX" || u32(20) != 2 {
		return 0, nil, nil, fmt.Errorf("bad header")
	}
	if binary.LittleEndian.Uint64(b[8:]) != uint64(len(b)) {
		return 0, nil, nil, fmt.Errorf("file_size %d, file %d", binary.LittleEndian.Uint64(b[8:]), len(b))
	}
	n := int(u32(16))
	var sum uint32
	for i := 0; i < 40+24*n; i++ {
		if i < 4 || i >= 8 {
			sum += uint32(b[i])
		}
	}
	if sum != u32(4) {
		return 0, nil, nil, fmt.Errorf("header checksum %x, want %x", u32(4), sum)
	}
	for i := range n {
		e := 40 + 24*i
		ptr, csize, size := int(binary.LittleEndian.Uint64(b[e:])), int(u32(e+8)), int(u32(e+12))
		flags := b[e+21]
		raw := b[ptr : ptr+csize]
		var data []byte
		switch {
		case flags&2 != 0:
			r, err := xz.NewReader(bytes.NewReader(raw))
			if err != nil {
				return 0, nil, nil, err
			}
			data, err = io.ReadAll(r)
			if err != nil {
				return 0, nil, nil, err
			}
		case flags&1 != 0:
			r, err := zlib.NewReader(bytes.NewReader(raw))
			if err != nil {
				return 0, nil, nil, err
			}
			data, _ = io.ReadAll(r)
		default:
			data = raw
		}
		if len(data) != size {
			return 0, nil, nil, fmt.Errorf("section %d: %d bytes, size says %d", i, len(data), size)
		}
		var want uint32
		switch {
		case flags&4 != 0:
			want = refCRC(data)
		case flags&8 != 0:
			for _, c := range data {
				want += uint32(c)
			}
		}
		if flags&12 != 0 && want != u32(e+16) {
			return 0, nil, nil, fmt.Errorf("section %d checksum", i)
		}
		secs = append(secs, refSection{b[e+20], flags, data})
	}
	return b[3], b[24:40], secs, nil
}

// refObjects lists a v2 package's objects: name → bytes.
func refObjects(secs []refSection) (map[string][]byte, error) {
	var names, table []byte
	for _, s := range secs {
		switch s.typ {
		case 0xFF:
			names = s.data
		case 0x02:
			table = s.data
		}
	}
	out := map[string][]byte{}
	for e := 0; e+20 <= len(table); e += 20 {
		size := binary.LittleEndian.Uint64(table[e:])
		name := names[binary.LittleEndian.Uint32(table[e+8:]):]
		name = name[:bytes.IndexByte(name, 0)]
		sec, off := int(binary.LittleEndian.Uint32(table[e+12:])), int(binary.LittleEndian.Uint32(table[e+16:]))
		var content []byte
		for left := int(size); left > 0; sec++ {
			if secs[sec].typ != 0x01 {
				continue
			}
			take := min(left, len(secs[sec].data)-off)
			content = append(content, secs[sec].data[off:off+take]...)
			left -= take
			off = 0
		}
		out[string(name)] = content
	}
	return out, nil
}

func TestIndependentReader(t *testing.T) {
	objs := map[string][]byte{"a/x.txt": []byte("hello"), "big.bin": bytes.Repeat([]byte("0123456789abcdef"), 10000), "e": {}}
	var in []bpx.PackInput
	for _, name := range []string{"a/x.txt", "big.bin", "e"} {
		b := objs[name]
		in = append(in, bpx.PackInput{Name: name, Size: uint64(len(b)), Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }})
	}
	for _, comp := range []bpx.Compression{bpx.NoCompression, bpx.XZ, bpx.Zlib} {
		for _, check := range []bpx.Check{bpx.CRC32, bpx.WeakCheck, bpx.NoCheck} {
			var buf bpx.Buffer
			meta := (&bpx.Object{}).Set("k", bpx.StringValue("v"))
			if err := bpx.WritePackage(&buf, in, bpx.PackOptions{Compression: comp, Check: check, Metadata: meta, DebugNames: true}); err != nil {
				t.Fatal(err)
			}
			typ, _, secs, err := refParse(buf.Bytes())
			if err != nil || typ != 'P' {
				t.Fatalf("compression %d check %d: %v", comp, check, err)
			}
			got, err := refObjects(secs)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range objs {
				if !bytes.Equal(got[name], want) {
					t.Errorf("compression %d: object %q: %d bytes, want %d", comp, name, len(got[name]), len(want))
				}
			}
			if comp == bpx.XZ && secs[3].flags&2 == 0 {
				t.Errorf("big data section not xz-compressed: flags %x", secs[3].flags)
			}
		}
	}
}
