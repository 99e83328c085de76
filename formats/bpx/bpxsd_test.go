package bpx

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDJB2(t *testing.T) {
	// docs/formats/bpx.md §7 gives the debug key; the other is worked by hand
	// (5381·33 + 'a').
	if DebugKey != 0x0377BEB4DD4088E8 {
		t.Errorf("DJB2(__debug__) = 0x%016X", DebugKey)
	}
	if got := DJB2("a"); got != 5381*33+'a' {
		t.Errorf("DJB2(a) = %d", got)
	}
}

// TestBPXSDAllTypes decodes the SDK's file with a property of every type, each
// named after its type.
func TestBPXSDAllTypes(t *testing.T) {
	o, err := DecodeBPXSD(shared(t, "06_bpxsd_all_types.sd"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{"Null": Null, "Bool": Bool, "U8": U8, "U16": U16, "U32": U32, "U64": U64, "I8": I8,
		"I16": I16, "I32": I32, "I64": I64, "F32": F32, "F64": F64, "Str": String, "Arr": Array, "Obj": ObjectKind}
	if len(o.Props) != len(want) {
		t.Fatalf("%d properties, want %d", len(o.Props), len(want))
	}
	for _, p := range o.Props {
		if k, ok := want[p.Name]; !ok || k != p.Value.Kind {
			t.Errorf("property %q (key 0x%X) is a %s", p.Name, p.Key, p.Value.Kind)
		}
	}
	if v, _ := o.Get("Str"); v.Str != "héllo" {
		t.Errorf("Str = %q", v.Str)
	}
	if v, _ := o.Get("Bool"); v.Uint != 1 || !reflect.DeepEqual(v, BoolValue(true)) {
		t.Errorf("Bool = %+v, want %+v", v, BoolValue(true))
	}
	if f := BoolValue(false); f.Kind != Bool || f.Uint != 0 {
		t.Errorf("BoolValue(false) = %+v", f)
	}
	// Each scalar as read by hand from the file's bytes (little-endian, two's
	// complement): U16 cd ab, U32 ef be ad de, I16 d4 fe, I32 90 ee fe ff, …
	for name, want := range map[string]Value{
		"U8": {Kind: U8, Uint: 0xAB}, "U16": {Kind: U16, Uint: 0xABCD}, "U32": {Kind: U32, Uint: 0xDEADBEEF},
		"U64": {Kind: U64, Uint: 0x0123456789ABCDEF}, "I8": {Kind: I8, Int: -2}, "I16": {Kind: I16, Int: -300},
		"I32": {Kind: I32, Int: -70000}, "I64": {Kind: I64, Int: -5000000000},
		"F32": {Kind: F32, Float: 1.5}, "F64": {Kind: F64, Float: -2.25},
	} {
		if v, _ := o.Get(name); v.Uint != want.Uint || v.Int != want.Int || v.Float != want.Float {
			t.Errorf("%s = %+v, want %+v", name, v, want)
		}
	}
	tree := o.String()
	for _, s := range []string{"Obj: {}", "I64: -5000000000 (i64)", `Str: "héllo"`, "Arr: [3]"} {
		if !strings.Contains(tree, s) {
			t.Errorf("tree lacks %q:\n%s", s, tree)
		}
	}
	// Re-encoded with debug names, it decodes to the same object.
	b, err := EncodeBPXSD(o, true)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBPXSD(b)
	if err != nil || !reflect.DeepEqual(back, o) {
		t.Fatalf("round trip: %v\n%s\n%s", err, back, o)
	}
}

func TestBPXSDErrors(t *testing.T) {
	o := (&Object{}).Set("name", StringValue("x")).Set("n", U32Value(3))
	b, _ := EncodeBPXSD(o, false)
	for n := range len(b) {
		if _, err := DecodeBPXSD(b[:n]); err == nil {
			t.Errorf("truncated to %d bytes: accepted", n)
		}
	}
	bad := append([]byte{}, b...)
	bad[9] = 99
	var se *SDError
	if _, err := DecodeBPXSD(bad); !errors.As(err, &se) || se.Rule != RuleType || se.Offset != 9 {
		t.Errorf("unknown type code: %v", err)
	}
	// 1000 nested arrays: refused at the depth limit, quickly.
	deep := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}
	deep = append(deep, bytes.Repeat([]byte{13, 1}, 1000)...)
	deep = append(deep, 0)
	if _, err := DecodeBPXSD(deep); !errors.As(err, &se) || se.Rule != RuleDepth {
		t.Errorf("deep nesting: %v", err)
	}
	many := &Object{}
	for i := range 256 {
		many.Set(strings.Repeat("k", i+1), NullValue())
	}
	if _, err := EncodeBPXSD(many, false); err == nil {
		t.Error("256 properties encoded")
	}
}

func FuzzBPXSD(f *testing.F) {
	o := (&Object{}).Set("a", ArrayValue(U32Value(1), StringValue("s"))).Set("o", ObjectValue((&Object{}).Set("x", F64Value(1))))
	b, _ := EncodeBPXSD(o, true)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeBPXSD(b)
		if err != nil {
			return
		}
		_ = o.String()
		if again, err := EncodeBPXSD(o, false); err == nil {
			if _, err := DecodeBPXSD(again); err != nil {
				t.Fatalf("re-encoded object does not decode: %v", err)
			}
		}
	})
}
