package fbx

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/internal/atomicfile"
)

// footerID and footerMagic are the fixed bytes the FBX SDK writes after the
// top-level node list (docs/formats/fbx.md §2); readers ignore them, but other
// tools expect them.
var (
	footerID    = []byte{0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66, 0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e}
	footerMagic = []byte{0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b}
)

// Write writes f as a binary FBX of f.Version (7100 to 7700; 0 writes 7400):
// 32-bit node records before 7500, 64-bit from it, arrays uncompressed. Every
// property keeps its type; Parse reads back the same tree.
func Write(w io.Writer, f *File) error {
	v := f.Version
	if v == 0 {
		v = 7400
	}
	if err := checkVersion("", v, 0); err != nil {
		return err
	}
	wide := v >= 7500
	hs := 13
	if wide {
		hs = 25
	}
	var b []byte
	b = append(b, BinaryMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(v))
	var node func(n *Node) error
	node = func(n *Node) error {
		if len(n.Name) > 255 {
			return fmt.Errorf("fbx: node name %q is longer than 255 bytes", n.Name[:32])
		}
		start := len(b)
		b = append(b, make([]byte, hs)...)
		b = append(b, n.Name...)
		pstart := len(b)
		for i := range n.Props {
			var err error
			if b, err = appendProperty(b, &n.Props[i]); err != nil {
				return fmt.Errorf("fbx: node %q: %w", n.Name, err)
			}
		}
		plen := len(b) - pstart
		for _, c := range n.Children {
			if err := node(c); err != nil {
				return err
			}
		}
		if len(n.Children) > 0 || len(n.Props) == 0 {
			b = append(b, make([]byte, hs)...) // the null record ending the children
		}
		if !wide && len(b) > math.MaxUint32 {
			return fmt.Errorf("fbx: the file passes 4 GiB: write it as version 7500 or later")
		}
		h := b[start:]
		if wide {
			binary.LittleEndian.PutUint64(h, uint64(len(b)))
			binary.LittleEndian.PutUint64(h[8:], uint64(len(n.Props)))
			binary.LittleEndian.PutUint64(h[16:], uint64(plen))
			h[24] = byte(len(n.Name))
		} else {
			binary.LittleEndian.PutUint32(h, uint32(len(b)))
			binary.LittleEndian.PutUint32(h[4:], uint32(len(n.Props)))
			binary.LittleEndian.PutUint32(h[8:], uint32(plen))
			h[12] = byte(len(n.Name))
		}
		return nil
	}
	for _, n := range f.Nodes {
		if err := node(n); err != nil {
			return err
		}
	}
	b = append(b, make([]byte, hs)...)
	b = append(b, footerID...)
	b = append(b, 0, 0, 0, 0)
	for len(b)%16 != 0 {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(v))
	b = append(b, make([]byte, 120)...)
	b = append(b, footerMagic...)
	_, err := w.Write(b)
	return err
}

func appendProperty(b []byte, p *Property) ([]byte, error) {
	le := binary.LittleEndian
	b = append(b, p.Type)
	switch p.Type {
	case 'Y':
		return le.AppendUint16(b, uint16(int16(p.Int))), nil
	case 'C':
		return append(b, byte(p.Int&1)), nil
	case 'I':
		return le.AppendUint32(b, uint32(int32(p.Int))), nil
	case 'F':
		return le.AppendUint32(b, math.Float32bits(float32(p.Float))), nil
	case 'D':
		return le.AppendUint64(b, math.Float64bits(p.Float)), nil
	case 'L':
		return le.AppendUint64(b, uint64(p.Int)), nil
	case 'S':
		b = le.AppendUint32(b, uint32(len(p.String)))
		return append(b, p.String...), nil
	case 'R':
		b = le.AppendUint32(b, uint32(len(p.Raw)))
		return append(b, p.Raw...), nil
	case 'f', 'd', 'i', 'l', 'b':
		n := len(p.Floats) + len(p.Ints)
		size := n * int(elemSize(p.Type))
		if n > math.MaxUint32 || size > math.MaxUint32 {
			return nil, fmt.Errorf("an array of %d elements is more than FBX can hold", n)
		}
		b = le.AppendUint32(b, uint32(n))
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, uint32(size))
		fs, is := p.FloatArray(), p.IntArray()
		for i := range n {
			switch p.Type {
			case 'f':
				b = le.AppendUint32(b, math.Float32bits(float32(fs[i])))
			case 'd':
				b = le.AppendUint64(b, math.Float64bits(fs[i]))
			case 'i':
				b = le.AppendUint32(b, uint32(int32(is[i])))
			case 'l':
				b = le.AppendUint64(b, uint64(is[i]))
			case 'b':
				b = append(b, byte(is[i]&1))
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("property type %q is none of FBX's", p.Type)
}

// WriteASCII writes f as an ASCII FBX (docs/formats/fbx.md §3) of its
// version's major and minor numbers: numbers in the shortest form that reads
// back exactly (a float32 as its float64 value), an object's
// "Name\x00\x01Class" as "Class::Name", raw bytes as base64, '"' as &quot;.
// Parse reads back the same tree, up to the types ASCII does not tell apart.
func WriteASCII(w io.Writer, f *File) error {
	v := f.Version
	if v == 0 {
		v = 7400
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "; FBX %d.%d.0 project file\n", v/1000, v%1000/100)
	var node func(n *Node, depth int)
	node = func(n *Node, depth int) {
		ind := strings.Repeat("\t", depth)
		bw.WriteString(ind + n.Name + ": ")
		for i := range n.Props {
			if i > 0 {
				bw.WriteString(",")
			}
			writeASCIIProp(bw, &n.Props[i], ind)
		}
		if len(n.Children) > 0 || len(n.Props) == 0 {
			bw.WriteString(" {\n")
			for _, c := range n.Children {
				node(c, depth+1)
			}
			bw.WriteString(ind + "}\n")
		} else {
			bw.WriteString("\n")
		}
	}
	for _, n := range f.Nodes {
		node(n, 0)
	}
	return bw.Flush()
}

func writeASCIIProp(bw *bufio.Writer, p *Property, ind string) {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch p.Type {
	case 'Y', 'C', 'I', 'L':
		bw.WriteString(strconv.FormatInt(p.Int, 10))
	case 'F', 'D':
		bw.WriteString(num(p.Float))
	case 'S':
		s := p.String
		if name, class, ok := strings.Cut(s, "\x00\x01"); ok {
			s = class + "::" + name
		}
		bw.WriteString(`"` + strings.ReplaceAll(s, `"`, "&quot;") + `"`)
	case 'R':
		bw.WriteString(`"` + base64.StdEncoding.EncodeToString(p.Raw) + `"`)
	case 'f', 'd', 'i', 'l', 'b':
		fs, is := p.Floats, p.Ints
		fmt.Fprintf(bw, "*%d {\n%s\ta: ", len(fs)+len(is), ind)
		for i, x := range fs {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString(num(x))
		}
		for i, x := range is {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString(strconv.FormatInt(x, 10))
		}
		bw.WriteString("\n" + ind + "} ")
	}
}

// WriteFile writes f to path as binary FBX (ASCII when ascii is set),
// atomically: the old file stays whole on any error.
func WriteFile(path string, f *File, ascii bool) error {
	write := Write
	if ascii {
		write = WriteASCII
	}
	return atomicfile.Write(path, func(w io.Writer) error { return write(w, f) })
}
