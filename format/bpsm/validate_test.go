package bpsm

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Layout of the base file (worked out from FACTS §2.5): 3 vertices, 6 indices, clips
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

// checkProblem checks that err is a *ValidationError naming file and breaking rule,
// with a message that names the file, the rule and an offset.
func checkProblem(t *testing.T, err error, file, rule string) *ValidationError {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("accepted (err = %v)", err)
	}
	if !ve.HasRule(rule) {
		t.Fatalf("rule %s not reported: %v", rule, err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.File != file {
		t.Fatalf("no FormatError naming the file: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, "offset") || !strings.Contains(msg, rule) {
		t.Fatalf("message does not name file, offset and rule: %s", msg)
	}
	return ve
}

func TestValidationRules(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(b le) le
		rule    string
		offset  int64 // of the problem with that rule; -1: not checked
		lenient bool  // Lenient accepts it
	}{
		{"truncated header", func(b le) le { return b[:40] }, RuleTruncated, 40, false},
		{"empty", func(b le) le { return b[:0] }, RuleTruncated, 0, false},
		{"truncated vertex data", func(b le) le { return b[:1000] }, RuleBounds, 64, false},
		{"magic", func(b le) le { b[0] = 'X'; return b }, RuleMagic, 0, false},
		{"BPAT magic", func(b le) le { copy(b, "BPAT"); return b }, RuleMagic, 0, false},
		{"version 2", func(b le) le { b.u32(4, 2); return b }, RuleVersion, 4, false},
		{"version 0", func(b le) le { b.u32(4, 0); return b }, RuleVersion, 4, false},
		{"unknown species", func(b le) le { b.u32(8, 9); return b }, RuleSpecies, 8, false},
		{"lod 2", func(b le) le { b.u32(12, 2); return b }, RuleLOD, 12, false},
		{"no vertices", func(b le) le { b.u32(16, 0); return b }, RuleVertexCount, 16, false},
		{"index count 5", func(b le) le { b.u32(20, 5); return b }, RuleIndexCount, 20, false},
		{"index out of range", func(b le) le { b.u32(160+4*4, 3); return b }, RuleIndex, 176, false},
		{"index huge", func(b le) le { b.u32(160, math.MaxUint32); return b }, RuleIndex, 160, false},
		{"no clips", func(b le) le { b.u32(24, 0); return b }, RuleClipCount, 24, false},
		{"empty clip", func(b le) le { b.u32(104+8, 0); return b }, RuleFrameCount, 112, false},
		{"frame offset gap", func(b le) le { b.u32(104+12, 3); return b }, RuleFrameOffset, 116, false},
		{"frame offset overlap", func(b le) le { b.u32(104+12, 1); return b }, RuleFrameOffset, 116, false},
		{"frame total", func(b le) le { b.u32(28, 4); return b }, RuleFrameTotal, 28, false},
		{"huge frame total", func(b le) le { b.u32(28, math.MaxUint32); return b }, RuleBounds, 64, false},
		{"vertex size overflows 64 bits", func(b le) le { b.u32(16, math.MaxUint32); b.u32(28, math.MaxUint32); return b }, RuleBounds, 64, false},
		{"huge clip count", func(b le) le { b.u32(24, math.MaxUint32); return b }, RuleBounds, 40, false},
		{"huge index count", func(b le) le { b.u32(20, math.MaxUint32); return b }, RuleBounds, 56, false},
		{"huge string table", func(b le) le { b.u32(32, math.MaxUint32); return b }, RuleBounds, 48, false},
		{"clip table past end", func(b le) le { b.u64(40, 1<<62); return b }, RuleBounds, 40, false},
		{"string table past end", func(b le) le { b.u64(48, 1<<62); return b }, RuleBounds, 48, false},
		{"index data past end", func(b le) le { b.u64(56, 1030); return b }, RuleBounds, 56, false},
		{"vertex offset overflow", func(b le) le { b.u64(64, math.MaxUint64-15); return b }, RuleBounds, 64, false},
		{"name past string table", func(b le) le { b.u32(72, 200); return b }, RuleBounds, 72, false},
		{"name length overflow", func(b le) le { b.u32(72+4, math.MaxUint32); return b }, RuleBounds, 72, false},
		{"strings before clips", func(b le) le { b.u64(48, 64); return b }, RuleSectionOrder, 64, false},
		{"vertices before indices", func(b le) le { b.u64(64, 136); return b }, RuleSectionOrder, 136, false},
		{"strings overlap indices", func(b le) le { b.u32(32, 30); return b }, RuleOverlap, 160, true},
		{"vertices overlap indices", func(b le) le { b.u64(64, 180); return b }, RuleOverlap, 180, true},
		{"clip table misaligned", func(b le) le { b.u64(40, 74); return b }, RuleAlignment, 40, false},
		{"index data misaligned", func(b le) le { b.u64(56, 162); return b }, RuleAlignment, 56, false},
		{"vertex data misaligned", func(b le) le { b.u64(64, 190); return b }, RuleAlignment, 64, false},
		{"name without NUL", func(b le) le { b[140] = 'x'; return b }, RuleName, 140, false},
		{"name with NUL", func(b le) le { b.u32(72+4, 9); return b }, RuleName, 136, false},
		{"name not UTF-8", func(b le) le { b[137] = 0xff; return b }, RuleName, 136, false},
		{"header reserved", func(b le) le { b[38] = 1; return b }, RuleZeroBytes, 38, true},
		{"clip reserved", func(b le) le { b[104+20] = 1; return b }, RuleZeroBytes, 124, true},
		{"gap before index data", func(b le) le { b[150] = 1; return b }, RuleZeroBytes, 150, true},
		{"gap before vertex data", func(b le) le { b[188] = 7; return b }, RuleZeroBytes, 188, true},
		{"trailing byte", func(b le) le { return append(b, 0) }, RuleTrailingBytes, 1032, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.mutate(le(baseFile(t)))
			_, err := Parse(b, Name("bad.bpsm"))
			ve := checkProblem(t, err, "bad.bpsm", tc.rule)
			if tc.offset >= 0 {
				found := false
				for _, p := range ve.Problems {
					found = found || (p.Rule == tc.rule && p.Offset == tc.offset)
				}
				if !found {
					t.Errorf("no %s problem at offset %d: %v", tc.rule, tc.offset, err)
				}
			}
			f, lerr := Parse(b, Lenient())
			if tc.lenient && lerr != nil {
				t.Fatalf("lenient mode rejects it: %v", lerr)
			}
			if !tc.lenient && lerr == nil {
				t.Fatal("lenient mode accepts it")
			}
			if f != nil {
				for c, cl := range f.Clips() {
					f.Vertex(c, cl.FrameCount-1, f.VertexCount()-1)
				}
			}
		})
	}
}

func TestIndexProblemCountsTheRest(t *testing.T) {
	b := le(baseFile(t))
	b.u32(164, 7)
	b.u32(172, 3)
	b.u32(180, 4)
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
	b.u32(8, 9)            // species
	b.u32(12, 3)           // lod
	b[72+16] = 1           // clip 0 reserved
	b.u32(168, 5)          // index
	b = append(b, 1, 2, 3) // trailing
	_, err := Parse(b, Name("many.bpsm"))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := []string{RuleSpecies, RuleLOD, RuleZeroBytes, RuleIndex, RuleTrailingBytes} // by offset
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

func TestRegisteredSpecies(t *testing.T) {
	b := le(baseFile(t))
	b.u32(8, 42)
	if _, err := Parse(b); err == nil {
		t.Fatal("species 42 accepted without registration")
	}
	if _, err := Parse(b, Species(7, 42)); err != nil {
		t.Fatal(err)
	}
}

func TestLenientReadsOverlappingSections(t *testing.T) {
	// Vertex data starting inside the index data still reads from where the header says.
	b := le(baseFile(t))
	b.u64(64, 180)
	f, err := Parse(b, Lenient())
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
		{"NaN position", func(b le) { b.f32(at+4, nan) }, RuleVertexFloat, at + 4, false},
		{"Inf normal", func(b le) { b.f32(at+20, float32(math.Inf(1))) }, RuleVertexFloat, at + 20, false},
		{"NaN uv", func(b le) { b.f32(at+28, nan) }, RuleVertexFloat, at + 28, false},
		{"NaN weight", func(b le) { b.f32(at+48, nan) }, RuleVertexFloat, at + 48, false},
		{"negative weight", func(b le) { b.f32(at+36, 0.75); b.f32(at+44, -0.125) }, RuleWeights, at + 44, false},
		{"weight above 1", func(b le) { b.f32(at+40, 1.5) }, RuleWeights, at + 40, false},
		{"weights sum to 0.5", func(b le) { b.f32(at+36, 0) }, RuleWeights, at + 36, false},
		{"pad byte", func(b le) { b[at+54] = 1 }, RuleZeroBytes, at + 54, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := le(baseFile(t))
			tc.mutate(b)
			f, err := Parse(b, Name("verts.bpsm"))
			if err != nil {
				t.Fatalf("Parse checks vertices: %v", err)
			}
			err = f.CheckVertices()
			ve := checkProblem(t, err, "verts.bpsm", tc.rule)
			p := ve.Problems[0]
			if len(ve.Problems) != 1 || p.Offset != tc.offset || p.Index != 1 || !strings.Contains(p.Detail, "frame 2 vertex 1") {
				t.Fatalf("problems %v; want one at %d in clip 1", err, tc.offset)
			}
			lf, err := Parse(b, Lenient())
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
		for _, opts := range [][]Option{nil, {Lenient()}} {
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
