// Package mot reads, writes, converts and encodes PlatinumGames motion files
// (.mot) of both families — Bayonetta 1, and Bayonetta 2 / Nier: Automata /
// Transformers: Devastation — in both byte orders, as docs/formats/mot.md
// specifies. A Motion keeps every record's data as stored, so writing a parsed
// file gives back its bytes; Curve decodes a record's values and evaluates them
// at every frame, bit for bit as the community decoder does.
package mot

import (
	"encoding/binary"
	"fmt"

	"github.com/bonebake/bonebake/formats"
)

// Family is one of the two motion file families (docs/formats/mot.md §1).
type Family uint8

const (
	Bayo1 Family = 1 // Bayonetta 1
	Bayo2 Family = 2 // Bayonetta 2, Nier: Automata, Transformers: Devastation
)

func (f Family) String() string {
	switch f {
	case Bayo1:
		return "bayo1"
	case Bayo2:
		return "bayo2"
	}
	return fmt.Sprintf("family(%d)", uint8(f))
}

// ParseFamily reads "bayo1" or "bayo2".
func ParseFamily(s string) (Family, error) {
	switch s {
	case "bayo1":
		return Bayo1, nil
	case "bayo2":
		return Bayo2, nil
	}
	return 0, fmt.Errorf("family %q is not bayo1 or bayo2", s)
}

// OrderName is "little" or "big".
func OrderName(o binary.ByteOrder) string {
	if o == binary.BigEndian {
		return "big"
	}
	return "little"
}

// ParseByteOrder reads "little" or "big".
func ParseByteOrder(s string) (binary.ByteOrder, error) {
	switch s {
	case "little":
		return binary.LittleEndian, nil
	case "big":
		return binary.BigEndian, nil
	}
	return nil, fmt.Errorf("byte order %q is not little or big", s)
}

// Header sizes, magic and the Bayonetta 2 family's identifying word (§4, §5).
const (
	Magic       = "mot\x00"
	Bayo1Header = 16
	Bayo2Header = 0x2C
	Bayo2Tag    = 0x20120405
	RecordSize  = 12
	NameSize    = 20
)

// Flags of the header (§4, §5).
const (
	FlagLoop   = 1
	FlagCamera = 2
)

// Special bone ids (§2).
const (
	RootBone       = -1
	TerminatorBone = 0x7FFF
)

// IsCamera says whether bone is a camera "bone" in family f (§2).
func IsCamera(f Family, bone int16) bool {
	if f == Bayo1 {
		return bone >= 0x0F60 && bone != TerminatorBone
	}
	return bone == 0x7000 || bone == 0x7001
}

// Motion is one motion file, decoded down to its records.
type Motion struct {
	Family  Family
	Order   binary.ByteOrder
	Flags   uint16
	Frames  int      // frame_count
	Name    string   // Bayonetta 2 family only (20 bytes at most)
	Records []Record // in file order, terminator left out
	// warnings are what a lenient parse let pass.
	warnings []*formats.FormatError
}

// Warnings lists what a lenient parse let pass that a strict one refuses, in
// file order: such a file decodes fully, but the writer does not give back its
// exact bytes.
func (m *Motion) Warnings() []*formats.FormatError { return m.warnings }

// Loops says whether header flag bit 0 is set.
func (m *Motion) Loops() bool { return m.Flags&FlagLoop != 0 }

// Record animates one track of one bone (§6).
type Record struct {
	Bone  int16
	Track uint8
	Type  int8
	// Count is the number of values (per-frame types) or keys (keyed types); 0 for
	// type 0.
	Count int
	// Value is type 0's constant.
	Value float32
	// Data is every other type's header and keys as stored, in the motion's byte
	// order (Layout gives its size).
	Data []byte
}

// shape is how a record's data is laid out, across both families' type numbers
// (§7, §8); conversion keeps the shape or widens it.
type shape uint8

const (
	shConst      shape = iota
	shF32              // f32 per frame
	shQ16              // f32 P, dP; u16 cp per frame
	shQ8F              // f32 P, dP; u8 cp per frame (B1 5)
	shQ8H              // pghalf P, dP; u8 cp per frame (B2 3)
	shFloatKeys        // {u16 frame, u16 pad, f32 p, m0, m1}
	shQKeys            // 6×f32; {u16 frame, cp, cm0, cm1}
	shHKeysRel         // 6×pghalf; {u8 relative frame, cp, cm0, cm1}
	shHKeysAbs8        // 6×pghalf; {u8 frame, cp, cm0, cm1} (B2 6)
	shHKeys16Pad       // 6×pghalf; {u16 frame, u8 pad, cp, cm0, cm1} (B1 7)
	shHKeys16BE        // 6×pghalf; {u16 big-endian frame, cp, cm0, cm1} (B2 8)
	shNone             // not a type of the family
)

var shapes = map[Family][9]shape{
	Bayo1: {shConst, shF32, shFloatKeys, shQ16, shQKeys, shQ8F, shHKeysRel, shHKeys16Pad, shNone},
	Bayo2: {shConst, shF32, shQ16, shQ8H, shFloatKeys, shQKeys, shHKeysAbs8, shHKeysRel, shHKeys16BE},
}

func shapeOf(f Family, typ int8) shape {
	if typ < 0 || typ > 8 {
		return shNone
	}
	return shapes[f][typ]
}

func typeOf(f Family, s shape) int8 {
	for t, x := range shapes[f] {
		if x == s {
			return int8(t)
		}
	}
	return -1
}

// header and key sizes in bytes, per shape.
func (s shape) sizes() (header, key int) {
	switch s {
	case shF32:
		return 0, 4
	case shQ16:
		return 8, 2
	case shQ8F:
		return 8, 1
	case shQ8H:
		return 4, 1
	case shFloatKeys:
		return 0, 16
	case shQKeys:
		return 24, 8
	case shHKeysRel, shHKeysAbs8:
		return 12, 4
	case shHKeys16Pad:
		return 12, 6
	case shHKeys16BE:
		return 12, 5
	}
	return 0, 0
}

// Layout returns the data size of a record of type typ with count values or keys
// in family f, and false when typ is not a type of f.
func Layout(f Family, typ int8, count int) (size int, ok bool) {
	s := shapeOf(f, typ)
	if s == shNone {
		return 0, false
	}
	h, k := s.sizes()
	if s == shConst {
		return 0, true
	}
	return h + k*count, true
}
