package bpsm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// Layout of the base file (worked out from docs/formats/bpsm.md): 3 vertices, 6 indices, clips
// "idle" (2 frames) and "walk" (3 frames): clip table 72-135 (clip 1 at 104), strings
// "idle\0walk\0" 136-145, zero pad 146-159, index data 160-183, zero pad 184-191,
// vertex data 192-1031 (5 frames × 3 vertices × 56 bytes).
func baseFile(t testing.TB) []byte {
	b := write(t, testContents(3, []uint32{0, 1, 2, 2, 1, 0}, []int{2, 3}))
	if len(b) != 1032 {
		t.Fatalf("base file is %d bytes, want 1032", len(b))
	}
	return b
}

// vertexAt is the offset of vertex i of global frame k in the base file.
func vertexAt(k, i int) int { return 192 + (k*3+i)*VertexSize }

func TestValidationRules(t *testing.T) {
	nan := float32(math.NaN())
	formattest.Rules(t, baseFile, parse, []formattest.Case{
		{Name: "truncated header", Mutate: func(b le) le { return b[:40] }, Rule: formats.RuleTruncated, Offset: 40},
		{Name: "empty", Mutate: func(b le) le { return b[:0] }, Rule: formats.RuleTruncated, Offset: 0},
		{Name: "truncated vertex data", Mutate: func(b le) le { return b[:1000] }, Rule: formats.RuleBounds, Offset: 64},
		{Name: "magic", Mutate: func(b le) le { b[0] = 'X'; return b }, Rule: formats.RuleMagic, Offset: 0},
		{Name: "BPAT magic", Mutate: func(b le) le { copy(b, "BPAT"); return b }, Rule: formats.RuleMagic, Offset: 0},
		{Name: "version 2", Mutate: func(b le) le { b.U32(4, 2); return b }, Rule: formats.RuleVersion, Offset: 4},
		{Name: "version 0", Mutate: func(b le) le { b.U32(4, 0); return b }, Rule: formats.RuleVersion, Offset: 4},
		{Name: "unknown species", Mutate: func(b le) le { b.U32(8, 9); return b }, Rule: formats.RuleSpecies, Offset: 8, Lenient: true},
		{Name: "lod 2", Mutate: func(b le) le { b.U32(12, 2); return b }, Rule: RuleLOD, Offset: 12},
		{Name: "no vertices", Mutate: func(b le) le { b.U32(16, 0); return b }, Rule: RuleVertexCount, Offset: 16},
		{Name: "index count 5", Mutate: func(b le) le { b.U32(20, 5); return b }, Rule: RuleIndexCount, Offset: 20},
		{Name: "index out of range", Mutate: func(b le) le { b.U32(160+4*4, 3); return b }, Rule: RuleIndex, Offset: 176},
		{Name: "index huge", Mutate: func(b le) le { b.U32(160, math.MaxUint32); return b }, Rule: RuleIndex, Offset: 160},
		{Name: "no clips", Mutate: func(b le) le { b.U32(24, 0); return b }, Rule: formats.RuleClipCount, Offset: 24},
		{Name: "empty clip", Mutate: func(b le) le { b.U32(104+8, 0); return b }, Rule: formats.RuleFrameCount, Offset: 112},
		{Name: "frame offset gap", Mutate: func(b le) le { b.U32(104+12, 3); return b }, Rule: formats.RuleFrameOffset, Offset: 116},
		{Name: "frame offset overlap", Mutate: func(b le) le { b.U32(104+12, 1); return b }, Rule: formats.RuleFrameOffset, Offset: 116},
		{Name: "frame total", Mutate: func(b le) le { b.U32(28, 4); return b }, Rule: formats.RuleFrameTotal, Offset: 28},
		{Name: "huge frame total", Mutate: func(b le) le { b.U32(28, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 64},
		{Name: "vertex size overflows 64 bits", Mutate: func(b le) le { b.U32(16, math.MaxUint32); b.U32(28, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 64},
		{Name: "huge clip count", Mutate: func(b le) le { b.U32(24, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 40},
		{Name: "huge index count", Mutate: func(b le) le { b.U32(20, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 56},
		{Name: "huge string table", Mutate: func(b le) le { b.U32(32, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 48},
		{Name: "clip table past end", Mutate: func(b le) le { b.U64(40, 1<<62); return b }, Rule: formats.RuleBounds, Offset: 40},
		{Name: "string table past end", Mutate: func(b le) le { b.U64(48, 1<<62); return b }, Rule: formats.RuleBounds, Offset: 48},
		{Name: "index data past end", Mutate: func(b le) le { b.U64(56, 1030); return b }, Rule: formats.RuleBounds, Offset: 56},
		{Name: "vertex offset overflow", Mutate: func(b le) le { b.U64(64, math.MaxUint64-15); return b }, Rule: formats.RuleBounds, Offset: 64},
		{Name: "name past string table", Mutate: func(b le) le { b.U32(72, 200); return b }, Rule: formats.RuleBounds, Offset: 72},
		{Name: "name length overflow", Mutate: func(b le) le { b.U32(72+4, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: 72},
		{Name: "strings before clips", Mutate: func(b le) le { b.U64(48, 64); return b }, Rule: formats.RuleSectionOrder, Offset: 64},
		{Name: "vertices before indices", Mutate: func(b le) le { b.U64(64, 136); return b }, Rule: formats.RuleSectionOrder, Offset: 136},
		{Name: "strings overlap indices", Mutate: func(b le) le { b.U32(32, 30); return b }, Rule: formats.RuleOverlap, Offset: 160, Lenient: true},
		{Name: "vertices overlap indices", Mutate: func(b le) le { b.U64(64, 180); return b }, Rule: formats.RuleOverlap, Offset: 180, Lenient: true},
		{Name: "clip table misaligned", Mutate: func(b le) le { b.U64(40, 74); return b }, Rule: formats.RuleAlignment, Offset: 40},
		{Name: "index data misaligned", Mutate: func(b le) le { b.U64(56, 162); return b }, Rule: formats.RuleAlignment, Offset: 56},
		{Name: "vertex data misaligned", Mutate: func(b le) le { b.U64(64, 190); return b }, Rule: formats.RuleAlignment, Offset: 64},
		{Name: "name without NUL", Mutate: func(b le) le { b[140] = 'x'; return b }, Rule: formats.RuleName, Offset: 140},
		{Name: "name with NUL", Mutate: func(b le) le { b.U32(72+4, 9); return b }, Rule: formats.RuleName, Offset: 136},
		{Name: "name not UTF-8", Mutate: func(b le) le { b[137] = 0xff; return b }, Rule: formats.RuleName, Offset: 136},
		{Name: "header reserved", Mutate: func(b le) le { b[38] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: 38, Lenient: true},
		{Name: "clip reserved", Mutate: func(b le) le { b[104+20] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: 124, Lenient: true},
		{Name: "gap before index data", Mutate: func(b le) le { b[150] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: 150, Lenient: true},
		{Name: "gap before vertex data", Mutate: func(b le) le { b[188] = 7; return b }, Rule: formats.RuleZeroBytes, Offset: 188, Lenient: true},
		{Name: "trailing byte", Mutate: func(b le) le { return append(b, 0) }, Rule: formats.RuleTrailingBytes, Offset: 1032, Lenient: true},
		// Strict means strict: finite vertex floats and the canonical layout.
		{Name: "vertex NaN", Mutate: func(b le) le { b.F32(vertexAt(4, 1)+4, nan); return b }, Rule: RuleVertexFloat, Offset: int64(vertexAt(4, 1) + 4), Lenient: true},
		{Name: "clip table after a gap", Mutate: func(b le) le { return b.Insert(72, 16, 40, 48, 56, 64) }, Rule: formats.RuleLayout, Offset: 40, Lenient: true},
		{Name: "index data a boundary late", Mutate: func(b le) le { return b.Insert(160, 16, 56, 64) }, Rule: formats.RuleLayout, Offset: 56, Lenient: true},
		{Name: "vertex data 4 bytes late", Mutate: func(b le) le { return b.Insert(192, 4, 64) }, Rule: formats.RuleLayout, Offset: 64, Lenient: true},
	})
}

// parse is Parse for formattest.Rules.
func parse(b []byte, opts ...formats.Option) ([]*formats.FormatError, error) {
	f, err := Parse(b, opts...)
	if err != nil {
		return nil, err
	}
	for c, cl := range f.Clips() { // whatever validates reads without panicking
		f.Vertex(c, cl.FrameCount-1, f.VertexCount()-1)
	}
	return f.Warnings(), nil
}

func TestIndexProblemCountsTheRest(t *testing.T) {
	b := le(baseFile(t))
	b.U32(164, 7)
	b.U32(172, 3)
	b.U32(180, 4)
	_, err := Parse(b)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 {
		t.Fatalf("want one index problem: %v", err)
	}
	if p := ve.Problems[0]; p.Rule != RuleIndex || p.Offset != 164 || p.Index != 1 || !strings.Contains(p.Detail, "2 more") {
		t.Fatalf("problem %+v", p)
	}
}

func TestValidationReportsEveryProblem(t *testing.T) {
	b := le(baseFile(t))
	b.U32(8, 9)            // species
	b.U32(12, 3)           // lod
	b[72+16] = 1           // clip 0 reserved
	b.U32(168, 5)          // index
	b = append(b, 1, 2, 3) // trailing
	_, err := Parse(b, formats.Name("many.bpsm"), formattest.Builtin)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := []string{formats.RuleSpecies, RuleLOD, formats.RuleZeroBytes, RuleIndex, formats.RuleTrailingBytes} // by offset
	if len(ve.Problems) != len(want) {
		t.Fatalf("%d problems, want %d: %v", len(ve.Problems), len(want), err)
	}
	for i, r := range want {
		if ve.Problems[i].Rule != r {
			t.Errorf("problem %d is %s, want %s", i, ve.Problems[i].Rule, r)
		}
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "many.bpsm: 5 problems:") {
		t.Errorf("message %q", msg)
	}
}

func TestKnownSpecies(t *testing.T) { formattest.KnownSpecies(t, baseFile(t), parse) }

func TestLenientReadsOverlappingSections(t *testing.T) {
	// Vertex data starting inside the index data still reads from where the header says.
	b := le(baseFile(t))
	b.U64(64, 180)
	f, err := Parse(b, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Vertex(0, 0, 0), DecodeVertex(b[180:]); !sameVertex(got, want) {
		t.Fatalf("vertex 0 = %+v, want the bytes at 180 (%+v)", got, want)
	}
}

func TestCheckVertices(t *testing.T) {
	nan := float32(math.NaN())
	// Vertex 1 of clip 1 frame 2 (global frame 4) is at 192 + (4·3+1)·56 = 920.
	const at = 920
	cases := []struct {
		name    string
		mutate  func(b le)
		rule    string
		offset  int64
		lenient bool
	}{
		{"NaN position", func(b le) { b.F32(at+4, nan) }, RuleVertexFloat, at + 4, false},
		{"Inf normal", func(b le) { b.F32(at+20, float32(math.Inf(1))) }, RuleVertexFloat, at + 20, false},
		{"NaN uv", func(b le) { b.F32(at+28, nan) }, RuleVertexFloat, at + 28, false},
		{"NaN weight", func(b le) { b.F32(at+48, nan) }, RuleVertexFloat, at + 48, false},
		{"negative weight", func(b le) { b.F32(at+36, 0.75); b.F32(at+44, -0.125) }, RuleWeights, at + 44, false},
		{"weight above 1", func(b le) { b.F32(at+40, 1.5) }, RuleWeights, at + 40, false},
		{"weights sum to 0.5", func(b le) { b.F32(at+36, 0) }, RuleWeights, at + 36, false},
		{"pad byte", func(b le) { b[at+54] = 1 }, formats.RuleZeroBytes, at + 54, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := le(baseFile(t))
			tc.mutate(b)
			f, err := Parse(b, formats.Name("verts.bpsm"), formats.SkipFloatScan())
			if err != nil {
				t.Fatalf("Parse checks vertices: %v", err)
			}
			err = f.CheckVertices()
			p := formattest.Problem(t, err, "verts.bpsm", tc.rule, tc.offset)
			if n := len(err.(*ValidationError).Problems); n != 1 || p.Index != 1 || !strings.Contains(p.Detail, "frame 2 vertex 1") {
				t.Fatalf("problems %v; want one at %d in clip 1", err, tc.offset)
			}
			lf, err := Parse(b, formats.Lenient(), formats.SkipFloatScan())
			if err != nil {
				t.Fatal(err)
			}
			if lerr := lf.CheckVertices(); tc.lenient != (lerr == nil) {
				t.Fatalf("lenient CheckVertices: %v", lerr)
			}
		})
	}
}

func TestCheckVerticesStopsAtTheLimit(t *testing.T) {
	c := testContents(50, nil, []int{2, 2, 1}) // 250 vertices
	b := write(t, c)
	for k := 0; k < 250; k++ {
		b[192+k*VertexSize+vertexPad] = 9 // 192: vertex data offset of any index-free file with these names
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if err := f.CheckVertices(); !errors.As(err, &ve) || len(ve.Problems) != MaxVertexProblems {
		t.Fatalf("want %d problems: %v", MaxVertexProblems, err)
	}
	if got := ve.Problems[MaxVertexProblems-1].Offset; got != int64(192+99*VertexSize+vertexPad) {
		t.Errorf("last problem at %d", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(baseFile(f))
	f.Add(write(f, testContents(4, nil, []int{1, 2, 1, 1, 3})))
	f.Add([]byte("BPSM"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, opts := range [][]Option{nil, {formats.Lenient()}} {
			file, err := Parse(b, opts...)
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) || len(ve.Problems) == 0 {
					t.Fatalf("error is not a ValidationError: %v", err)
				}
				continue
			}
			// Whatever validates must be fully readable without panicking.
			vc := file.VertexCount()
			for c, cl := range file.Clips() {
				file.Vertex(c, cl.FrameCount-1, vc-1)
				if len(file.FrameBytes(c, 0)) != vc*VertexSize {
					t.Fatal("FrameBytes has the wrong length")
				}
				file.ClipIndex(cl.Name)
			}
			for _, x := range file.Indices() {
				if int(x) >= vc {
					t.Fatalf("index %d ≥ %d accepted", x, vc)
				}
			}
			file.CheckVertices()
			file.Sections()
			file.IndexBytes()
			file.VertexDataBytes()
		}
	})
}
