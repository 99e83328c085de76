package fbx

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// enc writes binary FBX records by the layout of docs/formats/fbx.md §2,
// independently of the reader, so that tests can build files good and bad.
type enc struct {
	wide bool
	b    []byte
}

type tnode struct {
	name  string
	props [][]byte // each an encoded property (type code and value)
	kids  []tnode
	// null forces a null record after the properties even without children.
	null bool
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func pI(v int32) []byte   { return append([]byte{'I'}, le32(uint32(v))...) }
func pL(v int64) []byte   { return binary.LittleEndian.AppendUint64([]byte{'L'}, uint64(v)) }
func pD(v float64) []byte { return binary.LittleEndian.AppendUint64([]byte{'D'}, math.Float64bits(v)) }
func pS(s string) []byte  { return append(append([]byte{'S'}, le32(uint32(len(s)))...), s...) }

// pArr encodes an array property: raw or zlib-compressed, with the given
// declared element count.
func pArr(t byte, count uint32, data []byte, compress bool) []byte {
	out := []byte{t}
	out = append(out, le32(count)...)
	if compress {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(data)
		w.Close()
		data = z.Bytes()
		out = append(out, le32(1)...)
	} else {
		out = append(out, le32(0)...)
	}
	out = append(out, le32(uint32(len(data)))...)
	return append(out, data...)
}

func f64s(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func (e *enc) hs() int {
	if e.wide {
		return 25
	}
	return 13
}

func (e *enc) node(n tnode) {
	start := len(e.b)
	e.b = append(e.b, make([]byte, e.hs())...)
	e.b = append(e.b, n.name...)
	pl := 0
	for _, p := range n.props {
		e.b = append(e.b, p...)
		pl += len(p)
	}
	for _, k := range n.kids {
		e.node(k)
	}
	if len(n.kids) > 0 || n.null {
		e.b = append(e.b, make([]byte, e.hs())...)
	}
	h := e.b[start:]
	if e.wide {
		binary.LittleEndian.PutUint64(h, uint64(len(e.b)))
		binary.LittleEndian.PutUint64(h[8:], uint64(len(n.props)))
		binary.LittleEndian.PutUint64(h[16:], uint64(pl))
		h[24] = byte(len(n.name))
	} else {
		binary.LittleEndian.PutUint32(h, uint32(len(e.b)))
		binary.LittleEndian.PutUint32(h[4:], uint32(len(n.props)))
		binary.LittleEndian.PutUint32(h[8:], uint32(pl))
		h[12] = byte(len(n.name))
	}
}

// file returns a whole binary FBX of the given version holding nodes.
func file(version uint32, nodes ...tnode) []byte {
	e := &enc{wide: version >= 7500}
	e.b = append([]byte(BinaryMagic), le32(version)...)
	for _, n := range nodes {
		e.node(n)
	}
	e.b = append(e.b, make([]byte, e.hs())...)
	return append(e.b, make([]byte, 160)...) // a footer, which is ignored
}

func sample() []tnode {
	return []tnode{
		{name: "GlobalSettings", kids: []tnode{{name: "Properties70", kids: []tnode{
			{name: "P", props: [][]byte{pS("UpAxis"), pS("int"), pS("Integer"), pS(""), pI(2)}},
			{name: "P", props: [][]byte{pS("UnitScaleFactor"), pS("double"), pS("Number"), pS(""), pD(2.54)}},
		}}}},
		{name: "Objects", kids: []tnode{
			{name: "Model", props: [][]byte{pL(101), pS("Hips\x00\x01Model"), pS("LimbNode")}, kids: []tnode{{name: "Properties70", kids: []tnode{
				{name: "P", props: [][]byte{pS("Lcl Translation"), pS("Lcl Translation"), pS(""), pS("A"), pD(1), pD(2), pD(3)}},
			}}}},
			{name: "Geometry", props: [][]byte{pL(202), pS("Body\x00\x01Geometry"), pS("Mesh")}, kids: []tnode{
				{name: "Vertices", props: [][]byte{pArr('d', 3, f64s(0.5, -1, 7), true)}},
				{name: "PolygonVertexIndex", props: [][]byte{pArr('i', 3, append(append(le32(0), le32(1)...), le32(^uint32(2))...), false)}},
			}},
		}},
		{name: "Connections", kids: []tnode{
			{name: "C", props: [][]byte{pS("OO"), pL(202), pL(101)}},
			{name: "C", props: [][]byte{pS("OP"), pL(303), pL(101), pS("Lcl Rotation")}},
		}},
	}
}

func checkSample(t *testing.T, f *File) {
	t.Helper()
	s, err := f.Scene()
	if err != nil {
		t.Fatal(err)
	}
	if up := s.GlobalSettings.Int("UpAxis", -1); up != 2 {
		t.Errorf("UpAxis %d, want 2", up)
	}
	if u := s.GlobalSettings.Float("UnitScaleFactor", 0); u != 2.54 {
		t.Errorf("UnitScaleFactor %v, want 2.54", u)
	}
	hips := s.ByID[101]
	if hips == nil || hips.Name != "Hips" || hips.Class != "Model" || hips.SubClass != "LimbNode" {
		t.Fatalf("object 101 = %+v", hips)
	}
	if v := hips.Props.Vec3("Lcl Translation", [3]float64{}); v != [3]float64{1, 2, 3} {
		t.Errorf("Lcl Translation %v", v)
	}
	g := s.ByID[202]
	if g == nil || g.Name != "Body" {
		t.Fatalf("object 202 = %+v", g)
	}
	if v := g.Node.Child("Vertices").Props[0].FloatArray(); len(v) != 3 || v[0] != 0.5 || v[1] != -1 || v[2] != 7 {
		t.Errorf("Vertices %v", v)
	}
	if v := g.Node.Child("PolygonVertexIndex").Props[0].IntArray(); len(v) != 3 || v[2] != -3 {
		t.Errorf("PolygonVertexIndex %v", v)
	}
	want := []Connection{{Kind: "OO", Child: 202, Parent: 101}, {Kind: "OP", Child: 303, Parent: 101, Property: "Lcl Rotation"}}
	if len(s.Connections) != 2 {
		t.Fatalf("connections %+v", s.Connections)
	}
	for i, c := range s.Connections {
		c.Offset = 0
		if c != want[i] {
			t.Errorf("connection %d = %+v, want %+v", i, c, want[i])
		}
	}
}

// Both record widths (32-bit before 7500, 64-bit from it) read the same graph.
func TestBinaryBothWidths(t *testing.T) {
	for _, v := range []uint32{7100, 7400, 7500, 7700} {
		f, err := Parse(file(v, sample()...))
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if f.Version != int(v) || !f.Binary {
			t.Errorf("version %d read as %d", v, f.Version)
		}
		checkSample(t, f)
	}
}

const asciiSample = `; FBX 7.4.0 project file
; a comment
FBXHeaderExtension:  {
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "",2
		P: "UnitScaleFactor", "double", "Number", "",2.54
	}
}
Objects:  {
	Model: 101, "Model::Hips", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",1,2,3
		}
		Shading: Y
	}
	Geometry: 202, "Geometry::Body", "Mesh" {
		Vertices: *3 {
			a: 0.5,-1,
			7
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		}
	}
}
Connections:  {
	;Model::Body, Model::Hips
	C: "OO",202,101
	C: "OP",303,101, "Lcl Rotation"
}
`

func TestASCII(t *testing.T) {
	f, err := Parse([]byte(asciiSample))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 7400 || f.Binary {
		t.Errorf("version %d binary %v", f.Version, f.Binary)
	}
	checkSample(t, f)
}

func rules(t *testing.T, err error) *formats.FormatError {
	t.Helper()
	var fe *formats.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is no formats.FormatError", err)
	}
	return fe
}

func wantRule(t *testing.T, name string, b []byte, rule string, maxOff int64) {
	t.Helper()
	_, err := Parse(b, formats.Name(name))
	if err == nil {
		t.Fatalf("%s: parsed", name)
	}
	fe := rules(t, err)
	if fe.Rule != rule {
		t.Errorf("%s: rule %q, want %q: %v", name, fe.Rule, rule, err)
	}
	if fe.Offset < 0 || fe.Offset > maxOff {
		t.Errorf("%s: offset %d outside 0…%d: %v", name, fe.Offset, maxOff, err)
	}
	if !strings.Contains(err.Error(), name) {
		t.Errorf("%s: error does not name the file: %v", name, err)
	}
}

func TestVersionsRefused(t *testing.T) {
	b := file(6100, sample()...)
	wantRule(t, "old.fbx", b, formats.RuleVersion, 27)
	if _, err := Parse(b); !strings.Contains(err.Error(), "6100") || !strings.Contains(err.Error(), "FBX 6.1") {
		t.Errorf("the refusal does not name the version: %v", err)
	}
	wantRule(t, "new.fbx", file(8000, sample()...), formats.RuleVersion, 27)
	wantRule(t, "old-ascii.fbx", []byte("; FBX 6.1.0 project file\nObjects: {\n}\n"), formats.RuleVersion, 0)
	_, err := Parse([]byte("; FBX 6.1.0 project file\n"))
	if err == nil || !strings.Contains(err.Error(), "FBX 6.1") {
		t.Errorf("ASCII FBX 6: %v", err)
	}
}

func TestHostile(t *testing.T) {
	good := file(7400, sample()...)
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	wantRule(t, "magic.fbx", []byte("Kaydara FBX Binary!!!!!!!!!!!!"), formats.RuleMagic, 0)
	wantRule(t, "short.fbx", good[:20], formats.RuleTruncated, 20)

	// A raw array declaring a billion doubles in 24 bytes.
	raw := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 1e9, f64s(1, 2, 3), false)}})
	wantRule(t, "raw-length.fbx", raw, RuleArray, int64(len(raw)))
	// A compressed array declaring more than deflate could expand its bytes to.
	claim := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 1e9, f64s(1, 2, 3), true)}})
	wantRule(t, "zlib-length.fbx", claim, RuleArray, int64(len(claim)))
	// A zlib bomb: 72 MiB of zeros honestly declared, from a file of a few
	// hundred KiB: refused before inflating, by the decoded-size bound.
	bomb := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 9<<20, make([]byte, 72<<20), true)}})
	if len(bomb) > 1<<20 {
		t.Fatalf("bomb is %d bytes", len(bomb))
	}
	wantRule(t, "bomb.fbx", bomb, RuleDecoded, int64(len(bomb)))
	// A stream that inflates to more, or fewer, bytes than declared.
	more := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 2, f64s(1, 2, 3), true)}})
	wantRule(t, "zlib-more.fbx", more, RuleZlib, int64(len(more)))
	fewer := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 4, f64s(1, 2, 3), true)}})
	wantRule(t, "zlib-fewer.fbx", fewer, RuleZlib, int64(len(fewer)))
	badEnc := file(7400, tnode{name: "V", props: [][]byte{pArr('d', 3, f64s(1, 2, 3), false)}})
	badEnc[27+13+1+1+4] = 7 // the array's encoding field
	wantRule(t, "encoding.fbx", badEnc, RuleArray, int64(len(badEnc)))
	badType := file(7400, tnode{name: "V", props: [][]byte{{'Q', 1, 2}}})
	wantRule(t, "type.fbx", badType, RulePropertyType, int64(len(badType)))

	// Deep nesting.
	deep := tnode{name: "N"}
	for range MaxDepth + 5 {
		deep = tnode{name: "N", kids: []tnode{deep}}
	}
	d := file(7400, deep)
	wantRule(t, "deep.fbx", d, RuleDepth, int64(len(d)))
	var asciiDeep strings.Builder
	asciiDeep.WriteString("; FBX 7.4.0 project file\n")
	for range MaxDepth + 5 {
		asciiDeep.WriteString("N: {\n")
	}
	wantRule(t, "deep-ascii.fbx", []byte(asciiDeep.String()), RuleDepth, int64(asciiDeep.Len()))

	// Wrong end offsets: past the file, and before the record's own contents.
	past := bytes.Clone(good)
	binary.LittleEndian.PutUint32(past[27:], uint32(len(good)+100))
	wantRule(t, "end-past.fbx", past, RuleNodeEnd, 27)
	back := bytes.Clone(good)
	binary.LittleEndian.PutUint32(back[27:], 30)
	wantRule(t, "end-back.fbx", back, RuleNodeEnd, 27)
	// A property count the property list cannot hold.
	count := bytes.Clone(good)
	binary.LittleEndian.PutUint32(count[27+4:], 1<<30)
	wantRule(t, "props.fbx", count, formats.RuleBounds, 27)

	// Every truncation of the file is refused, at an offset inside it.
	for cut := 27; cut < len(good)-160; cut += 7 {
		_, err := Parse(good[:cut])
		if err == nil {
			t.Fatalf("cut at %d parsed", cut)
		}
		if fe := rules(t, err); fe.Offset > int64(cut) {
			t.Errorf("cut at %d: offset %d", cut, fe.Offset)
		}
	}

	// ASCII: an array longer than its count, a count the file cannot hold, an
	// unclosed block.
	wantRule(t, "count.fbx", []byte("; FBX 7.4.0 project file\nV: *2 {\n a: 1,2,3\n}\n"), RuleArray, 60)
	wantRule(t, "huge.fbx", []byte("; FBX 7.4.0 project file\nV: *99999999999 {\n a: 1\n}\n"), RuleArray, 60)
	wantRule(t, "open.fbx", []byte("; FBX 7.4.0 project file\nV: {\n a: 1\n"), formats.RuleTruncated, 60)
	wantRule(t, "garbage.fbx", []byte("; FBX 7.4.0 project file\nV: 1 2\n"), RuleSyntax, 60)
}

// The decoded-size bound admits what real files need: every array of the
// Mixamo files inflates within it, and the graph is the one three.js reads.
func TestRealFiles(t *testing.T) {
	for _, name := range []string{"mixamo.fbx", "Samba_Dancing.fbx"} {
		path := testfiles.Path(t, "fbx", name)
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Version != 7700 || !f.Binary {
			t.Errorf("%s: version %d", name, f.Version)
		}
		s, err := f.Scene()
		if err != nil {
			t.Fatal(err)
		}
		classes := map[string]int{}
		for _, o := range s.Objects {
			classes[o.Class+"/"+o.SubClass]++
		}
		// The Definitions node counts each class; the objects read must agree.
		for _, ot := range f.Top("Definitions").Children {
			if ot.Name != "ObjectType" || ot.Props[0].String == "GlobalSettings" {
				continue
			}
			want, _ := ot.Child("Count").Props[0].Integer()
			got := 0
			for k, n := range classes {
				if strings.HasPrefix(k, ot.Props[0].String+"/") {
					got += n
				}
			}
			if int64(got) != want {
				t.Errorf("%s: %d %s objects, Definitions says %d", name, got, ot.Props[0].String, want)
			}
		}
		if classes["Model/LimbNode"] < 65 {
			t.Errorf("%s: %d LimbNode models", name, classes["Model/LimbNode"])
		}
		if up := s.GlobalSettings.Int("UpAxis", -1); up != 1 {
			t.Errorf("%s: UpAxis %d", name, up)
		}
		for _, c := range s.Connections {
			if c.Parent != 0 && s.ByID[c.Parent] == nil || s.ByID[c.Child] == nil {
				t.Errorf("%s: connection %+v joins an id no object has", name, c)
				break
			}
		}
	}
}

// An embedded file's Content in ASCII starts with an empty value, then its
// base64 in strings over several lines.
func TestASCIIContent(t *testing.T) {
	f, err := Parse([]byte("; FBX 7.4.0 project file\nVideo: 1, \"Video::V\", \"Clip\" {\n\tContent: , \n\t\t\"QUJD\",\n\t\t\"REVG\"\n\tFileName: \"a.png\"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Nodes[0].Child("Content")
	if c == nil || len(c.Props) != 2 || c.Props[0].String != "QUJD" || c.Props[1].String != "REVG" || f.Nodes[0].Child("FileName") == nil {
		t.Errorf("Content %+v", c)
	}
}
