package bpx

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bonebake/bonebake/formats"
)

// Kind is a BPXSD value's type code (docs/formats/bpx.md §7).
type Kind uint8

// The BPXSD type codes.
const (
	Null Kind = iota
	Bool
	U8
	U16
	U32
	U64
	I8
	I16
	I32
	I64
	F32
	F64
	String
	Array
	ObjectKind
)

var kindNames = [...]string{"null", "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "type " + strconv.Itoa(int(k))
}

// scalarSize is the encoded size of each fixed-size kind (Null to F64): its
// value is that many little-endian bytes.
var scalarSize = [...]int{Null: 0, Bool: 1, U8: 1, U16: 2, U32: 4, U64: 8, I8: 1, I16: 2, I32: 4, I64: 8, F32: 4, F64: 8}

// scalarBits is a fixed-size value as the integer whose low bytes encode it.
func (v Value) scalarBits() uint64 {
	switch {
	case v.Kind == F32:
		return uint64(math.Float32bits(float32(v.Float)))
	case v.Kind == F64:
		return math.Float64bits(v.Float)
	case v.Kind >= I8 && v.Kind <= I64:
		return uint64(v.Int)
	}
	return v.Uint
}

// setScalarBits is scalarBits' inverse: signed kinds are sign-extended from
// their size.
func (v *Value) setScalarBits(x uint64) {
	shift := 64 - 8*scalarSize[v.Kind]
	switch {
	case v.Kind == F32:
		v.Float = float64(math.Float32frombits(uint32(x)))
	case v.Kind == F64:
		v.Float = math.Float64frombits(x)
	case v.Kind >= I8 && v.Kind <= I64:
		v.Int = int64(x<<shift) >> shift
	default:
		v.Uint = x
	}
}

// Value is one BPXSD value. Which field holds it depends on Kind: Uint for bool
// and the unsigned kinds, Int for the signed ones, Float for f32 and f64 (an f32
// is stored rounded), Str, Arr, Obj.
type Value struct {
	Kind  Kind
	Uint  uint64
	Int   int64
	Float float64
	Str   string
	Arr   []Value
	Obj   *Object
}

// NullValue and the constructors after it make a Value of one kind each.
func NullValue() Value { return Value{Kind: Null} }
func BoolValue(b bool) Value {
	v := Value{Kind: Bool}
	if b {
		v.Uint = 1
	}
	return v
}
func U32Value(u uint32) Value      { return Value{Kind: U32, Uint: uint64(u)} }
func U64Value(u uint64) Value      { return Value{Kind: U64, Uint: u} }
func I64Value(i int64) Value       { return Value{Kind: I64, Int: i} }
func F64Value(f float64) Value     { return Value{Kind: F64, Float: f} }
func StringValue(s string) Value   { return Value{Kind: String, Str: s} }
func ArrayValue(vs ...Value) Value { return Value{Kind: Array, Arr: vs} }
func ObjectValue(o *Object) Value  { return Value{Kind: ObjectKind, Obj: o} }

// Prop is one property of an object: its key (the DJB2-64 of its name), the
// name when known, and its value.
type Prop struct {
	Key   uint64
	Name  string
	Value Value
}

// Object is a BPXSD object: properties in file order.
type Object struct{ Props []Prop }

// DJB2 is the 64-bit DJB2 hash that makes BPXSD keys (§7).
func DJB2(s string) uint64 {
	h := uint64(5381)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint64(s[i])
	}
	return h
}

// DebugKey is the key of the "__debug__" property, which lists the names.
var DebugKey = DJB2("__debug__")

// Set adds or replaces the property named name.
func (o *Object) Set(name string, v Value) *Object {
	k := DJB2(name)
	for i := range o.Props {
		if o.Props[i].Key == k {
			o.Props[i] = Prop{k, name, v}
			return o
		}
	}
	o.Props = append(o.Props, Prop{k, name, v})
	return o
}

// Get returns the property named name.
func (o *Object) Get(name string) (Value, bool) {
	k := DJB2(name)
	for _, p := range o.Props {
		if p.Key == k {
			return p.Value, true
		}
	}
	return Value{}, false
}

// MaxDepth is how deep objects and arrays may nest for Decode.
const MaxDepth = 32

// EncodeBPXSD encodes o. With debug, every object that has named properties
// also gets a "__debug__" array of their names, last. Objects and arrays hold at
// most 255 entries, the debug array included.
func EncodeBPXSD(o *Object, debug bool) ([]byte, error) {
	return appendObject(nil, o, debug, 0)
}

func appendObject(b []byte, o *Object, debug bool, depth int) ([]byte, error) {
	if depth >= MaxDepth {
		return nil, fmt.Errorf("bpxsd: nested deeper than %d", MaxDepth)
	}
	var names []Value
	if debug {
		for _, p := range o.Props {
			if p.Name != "" && p.Key != DebugKey {
				names = append(names, StringValue(p.Name))
			}
		}
	}
	n := len(o.Props)
	if len(names) > 0 {
		n++
	}
	if n > 255 {
		return nil, fmt.Errorf("bpxsd: an object of %d properties; at most 255", n)
	}
	b = append(b, byte(n))
	var err error
	for _, p := range o.Props {
		if len(names) > 0 && p.Key == DebugKey {
			return nil, fmt.Errorf("bpxsd: a property named __debug__ and debug names both asked for")
		}
		b = le.AppendUint64(b, p.Key)
		if b, err = appendValue(b, p.Value, debug, depth); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	if len(names) > 0 {
		b = le.AppendUint64(b, DebugKey)
		b, err = appendValue(b, ArrayValue(names...), false, depth)
	}
	return b, err
}

func appendValue(b []byte, v Value, debug bool, depth int) ([]byte, error) {
	b = append(b, byte(v.Kind))
	switch v.Kind {
	case Null, Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64:
		x := v.scalarBits()
		for i := range scalarSize[v.Kind] {
			b = append(b, byte(x>>(8*i)))
		}
	case String:
		if strings.IndexByte(v.Str, 0) >= 0 || !utf8.ValidString(v.Str) {
			return nil, fmt.Errorf("bpxsd: string %q has a NUL byte or is not UTF-8", v.Str)
		}
		b = append(append(b, v.Str...), 0)
	case Array:
		if depth+1 >= MaxDepth {
			return nil, fmt.Errorf("bpxsd: nested deeper than %d", MaxDepth)
		}
		if len(v.Arr) > 255 {
			return nil, fmt.Errorf("bpxsd: an array of %d values; at most 255", len(v.Arr))
		}
		b = append(b, byte(len(v.Arr)))
		for _, e := range v.Arr {
			var err error
			if b, err = appendValue(b, e, debug, depth+1); err != nil {
				return nil, err
			}
		}
	case ObjectKind:
		if v.Obj == nil {
			return nil, fmt.Errorf("bpxsd: object value without an object")
		}
		return appendObject(b, v.Obj, debug, depth+1)
	default:
		return nil, fmt.Errorf("bpxsd: unknown type code %d", v.Kind)
	}
	return b, nil
}

// SDError is a BPXSD decoding error at an offset within the encoded bytes.
type SDError struct {
	Rule   string
	Offset int
	Detail string
}

func (e *SDError) Error() string {
	return fmt.Sprintf("bpxsd: offset %d (0x%x): %s: %s", e.Offset, e.Offset, e.Rule, e.Detail)
}

// DecodeBPXSD decodes the object in b. Names come from each object's
// "__debug__" array when it has one (that property is then dropped from Props).
// Truncation, unknown type codes, nesting past MaxDepth and trailing bytes are
// errors.
func DecodeBPXSD(b []byte) (*Object, error) {
	o, n, err := DecodeBPXSDPrefix(b)
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, &SDError{formats.RuleTrailingBytes, n, fmt.Sprintf("%d bytes after the object", len(b)-n)}
	}
	return o, nil
}

// DecodeBPXSDPrefix decodes the object at the start of b and says how many
// bytes it took; what follows is not looked at. (The reference SDK has written
// package metadata sections holding their object twice.)
func DecodeBPXSDPrefix(b []byte) (*Object, int, error) {
	d := sdDecoder{b: b}
	o, err := d.object(0)
	return o, d.p, err
}

type sdDecoder struct {
	b []byte
	p int
}

func (d *sdDecoder) need(n int, what string) ([]byte, error) {
	if len(d.b)-d.p < n {
		return nil, &SDError{formats.RuleTruncated, d.p, fmt.Sprintf("%s needs %d bytes, %d left", what, n, len(d.b)-d.p)}
	}
	s := d.b[d.p : d.p+n]
	d.p += n
	return s, nil
}

func (d *sdDecoder) object(depth int) (*Object, error) {
	if depth >= MaxDepth {
		return nil, &SDError{RuleDepth, d.p, fmt.Sprintf("objects and arrays nest deeper than %d", MaxDepth)}
	}
	c, err := d.need(1, "object count")
	if err != nil {
		return nil, err
	}
	o := &Object{Props: make([]Prop, 0, c[0])}
	var debug []Value
	for range int(c[0]) {
		k, err := d.need(8, "property key")
		if err != nil {
			return nil, err
		}
		key := le.Uint64(k)
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		if key == DebugKey && v.Kind == Array {
			debug = v.Arr
			continue
		}
		o.Props = append(o.Props, Prop{Key: key, Value: v})
	}
	for _, n := range debug {
		if n.Kind != String {
			continue
		}
		k := DJB2(n.Str)
		for i := range o.Props {
			if o.Props[i].Key == k {
				o.Props[i].Name = n.Str
			}
		}
	}
	return o, nil
}

func (d *sdDecoder) value(depth int) (Value, error) {
	at := d.p
	t, err := d.need(1, "type code")
	if err != nil {
		return Value{}, err
	}
	v := Value{Kind: Kind(t[0])}
	switch {
	case v.Kind <= F64:
		s, err := d.need(scalarSize[v.Kind], v.Kind.String())
		if err != nil {
			return v, err
		}
		var x uint64
		for i, c := range s {
			x |= uint64(c) << (8 * i)
		}
		v.setScalarBits(x)
	case v.Kind == String:
		end := bytes.IndexByte(d.b[d.p:], 0) // not string(d.b[d.p:]): that copies the rest per string
		if end < 0 {
			return v, &SDError{formats.RuleTruncated, d.p, "string without its NUL"}
		}
		v.Str = string(d.b[d.p : d.p+end])
		if !utf8.ValidString(v.Str) {
			return v, &SDError{formats.RuleName, d.p, "string is not valid UTF-8"}
		}
		d.p += end + 1
	case v.Kind == Array:
		if depth+1 >= MaxDepth {
			return v, &SDError{RuleDepth, at, fmt.Sprintf("objects and arrays nest deeper than %d", MaxDepth)}
		}
		c, err := d.need(1, "array count")
		if err != nil {
			return v, err
		}
		v.Arr = make([]Value, 0, c[0])
		for range int(c[0]) {
			e, err := d.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.Arr = append(v.Arr, e)
		}
	case v.Kind == ObjectKind:
		v.Obj, err = d.object(depth + 1)
		return v, err
	default:
		return v, &SDError{RuleType, at, fmt.Sprintf("unknown type code %d", t[0])}
	}
	return v, nil
}

// Print writes o as an indented tree, a property per line, named by its debug
// name when known and by its key in hex otherwise.
func (o *Object) Print(sb *strings.Builder) { printObject(sb, o, "") }

// String is o as Print writes it.
func (o *Object) String() string {
	var sb strings.Builder
	o.Print(&sb)
	return sb.String()
}

func printObject(sb *strings.Builder, o *Object, indent string) {
	for _, p := range o.Props {
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("0x%016X", p.Key)
		}
		sb.WriteString(indent + name + ": ")
		printValue(sb, p.Value, indent)
	}
}

func printValue(sb *strings.Builder, v Value, indent string) {
	switch v.Kind {
	case Null:
		sb.WriteString("null\n")
	case Bool:
		sb.WriteString(strconv.FormatBool(v.Uint != 0) + "\n")
	case U8, U16, U32, U64:
		fmt.Fprintf(sb, "%d (%s)\n", v.Uint, v.Kind)
	case I8, I16, I32, I64:
		fmt.Fprintf(sb, "%d (%s)\n", v.Int, v.Kind)
	case F32:
		fmt.Fprintf(sb, "%s (f32)\n", strconv.FormatFloat(v.Float, 'g', -1, 32))
	case F64:
		fmt.Fprintf(sb, "%s (f64)\n", strconv.FormatFloat(v.Float, 'g', -1, 64))
	case String:
		sb.WriteString(strconv.Quote(v.Str) + "\n")
	case Array:
		fmt.Fprintf(sb, "[%d]\n", len(v.Arr))
		for i, e := range v.Arr {
			fmt.Fprintf(sb, "%s  [%d]: ", indent, i)
			printValue(sb, e, indent+"  ")
		}
	case ObjectKind:
		sb.WriteString("{}\n")
		printObject(sb, v.Obj, indent+"  ")
	}
}
