// Package fbx reads Autodesk FBX files, binary (7.1 to 7.7) and ASCII (7.x), as
// the tree of nodes they hold (docs/formats/fbx.md): each node a name, a list of
// typed properties and child nodes. A small layer on top gives the object graph
// the scene is made of: objects by id with their class, subclass and name,
// connections, Properties70 entries and the global settings. What the objects
// mean (models, skins, curves) is left to the source that uses them.
//
// Reading is bounded: memory stays in proportion to the file (a compressed
// array's declared size is checked against its compressed size and the file's
// before it is inflated, and inflating stops at that size), nesting is limited,
// and every count is checked before anything is allocated for it.
package fbx

import (
	"bytes"
	"fmt"
	"math"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Rules of this format beyond the shared ones (formats.RuleTruncated,
// RuleMagic, RuleVersion, RuleBounds).
const (
	RuleNodeEnd      = "node-end"      // a node record's end offset not where its contents end
	RulePropertyType = "property-type" // a property type code FBX does not have
	RuleArray        = "array"         // an array's encoding, length or compressed size wrong
	RuleZlib         = "zlib"          // a compressed array that does not inflate to its declared size
	RuleDepth        = "depth"         // nodes nested deeper than MaxDepth
	RuleDecoded      = "decoded-size"  // more decoded data than the file's size allows
	RuleSyntax       = "syntax"        // an ASCII file that does not parse
	RuleObject       = "object"        // an object or connection without the ids the graph needs
)

// MaxDepth is how deep nodes may nest. Real files nest fewer than 10 levels;
// the limit keeps a hostile file from exhausting the stack.
const MaxDepth = 64

// DecodedFactor bounds what a file may decode to: the arrays it inflates may
// total at most DecodedFactor times the file's size (at least MinDecoded
// bytes). Real files compress their arrays 2 to 5 times.
const (
	DecodedFactor = 64
	MinDecoded    = 64 << 20
)

// Binary and ASCII files start so (docs/formats/fbx.md §1).
const (
	BinaryMagic = "Kaydara FBX Binary  \x00\x1a\x00"
	asciiMagic  = "; FBX "
)

// File is a parsed FBX file: its version and its top-level nodes.
type File struct {
	Name    string // the path it was opened from, or the name given to Parse
	Version int    // 7100 … 7700
	Binary  bool
	Nodes   []*Node // the top-level nodes in file order
}

// Node is one node record: a name, properties and children.
type Node struct {
	Name     string
	Props    []Property
	Children []*Node
	Offset   int64 // where the record starts in the file (its line's start in ASCII)
}

// Property is one typed value of a node (docs/formats/fbx.md §2). Type is
// FBX's code; one field holds the value:
//
//	Y C I L   Int (C is 0 or 1)
//	F D       Float
//	S         String (binary strings may hold NUL, as in "Name\x00\x01Class")
//	R         Raw
//	f d       Floats (f widened from float32)
//	i l       Ints (i widened from int32)
//	b         Ints (each 0 or 1)
type Property struct {
	Type   byte
	Int    int64
	Float  float64
	String string
	Raw    []byte
	Floats []float64
	Ints   []int64
}

// IsArray reports whether the property is one of the array types.
func (p *Property) IsArray() bool {
	switch p.Type {
	case 'f', 'd', 'i', 'l', 'b':
		return true
	}
	return false
}

// Number returns a scalar property's value as a float64 (false for a string,
// raw or array property).
func (p *Property) Number() (float64, bool) {
	switch p.Type {
	case 'Y', 'C', 'I', 'L':
		return float64(p.Int), true
	case 'F', 'D':
		return p.Float, true
	}
	return 0, false
}

// Integer returns a scalar property's value as an int64 (a float truncated).
func (p *Property) Integer() (int64, bool) {
	switch p.Type {
	case 'Y', 'C', 'I', 'L':
		return p.Int, true
	case 'F', 'D':
		if math.IsNaN(p.Float) || math.Abs(p.Float) > 1<<62 {
			return 0, false
		}
		return int64(p.Float), true
	}
	return 0, false
}

// FloatArray returns an array property's values as float64s (integers
// converted), or nil.
func (p *Property) FloatArray() []float64 {
	if p.Floats != nil {
		return p.Floats
	}
	if p.Ints != nil {
		out := make([]float64, len(p.Ints))
		for i, v := range p.Ints {
			out[i] = float64(v)
		}
		return out
	}
	return nil
}

// IntArray returns an array property's values as int64s (floats truncated), or
// nil.
func (p *Property) IntArray() []int64 {
	if p.Ints != nil {
		return p.Ints
	}
	if p.Floats != nil {
		out := make([]int64, len(p.Floats))
		for i, v := range p.Floats {
			out[i] = int64(v)
		}
		return out
	}
	return nil
}

// Child returns the node's first child named name, or nil.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Top returns the file's first top-level node named name, or nil.
func (f *File) Top(name string) *Node {
	for _, c := range f.Nodes {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Open reads the file at path and parses it; errors name the path. A named
// pipe, device or socket is refused (formats.ErrNotRegular).
func Open(path string, opts ...formats.Option) (*File, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, append(opts[:len(opts):len(opts)], formats.Name(path))...)
}

// Parse reads an FBX file held in b, binary or ASCII as its first bytes say.
// The File shares no memory with b.
func Parse(b []byte, opts ...formats.Option) (*File, error) {
	o := formats.Apply(opts)
	switch {
	case bytes.HasPrefix(b, []byte(BinaryMagic)):
		return parseBinary(b, o.Name)
	case isASCII(b):
		return parseASCII(b, o.Name)
	case len(b) < len(BinaryMagic) && bytes.HasPrefix([]byte(BinaryMagic), b):
		return nil, fail(o.Name, formats.RuleTruncated, int64(len(b)), "file is %d bytes; a binary FBX header alone is 27", len(b))
	}
	n := min(len(b), 20)
	return nil, fail(o.Name, formats.RuleMagic, 0, "starts with %q, neither %q (binary) nor an ASCII FBX's %q: not an FBX file", b[:n], BinaryMagic[:20], asciiMagic)
}

// IsFBX reports whether b (the start of a file) is an FBX file's start.
func IsFBX(b []byte) bool {
	return bytes.HasPrefix(b, []byte(BinaryMagic)) || isASCII(b)
}

// isASCII: an ASCII FBX starts with the comment "; FBX 7.4.0 project file",
// perhaps after a byte-order mark and blank lines.
func isASCII(b []byte) bool {
	b = bytes.TrimLeft(b[:min(len(b), 512)], "\ufeff \t\r\n")
	return bytes.HasPrefix(b, []byte(asciiMagic))
}

func fail(file, rule string, off int64, detail string, args ...any) error {
	return &formats.ValidationError{Format: "fbx", File: file, Problems: []*formats.FormatError{{
		File: file, Rule: rule, Offset: off, Index: -1, Detail: fmt.Sprintf(detail, args...),
	}}}
}

// decodedLimit is how many decoded array bytes a file of size n may yield.
func decodedLimit(n int) int64 {
	return max(int64(n)*DecodedFactor, MinDecoded)
}

// checkVersion refuses what this reader does not read: FBX 6 and older (a
// different object model), and versions after 7.7.
func checkVersion(file string, v int, off int64) error {
	switch {
	case v < 7100:
		return fail(file, formats.RuleVersion, off, "FBX version %d (FBX %d.%d): FBX 6 and older are not read; re-save the file as FBX 7.1 or later (FBX 2011+)", v, v/1000, v%1000/100)
	case v > 7700:
		return fail(file, formats.RuleVersion, off, "FBX version %d is newer than 7700 (7.7), the last this reader knows", v)
	}
	return nil
}
