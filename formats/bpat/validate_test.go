package bpat

import (
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// Layout of the base file (worked out from docs/formats/bpat.md §3): v2, 2 bones, clips "idle"
// (2 frames) and "walk" (3 frames), socket "s": clip table 64-151 (clip 1 at 108),
// socket table 152-183, strings "idle\0walk\0s\0" 184-195, zero pad 196-207,
// palette 208-847, socket data 848-1087.
func baseFile(t testing.TB) []byte {
	c := testContents(0, 2, []int{2, 3}, true, []Socket{{"s", 1, [3]float32{0, 0, 1}}})
	b := write(t, c)
	if len(b) != 1088 {
		t.Fatalf("base file is %d bytes, want 1088", len(b))
	}
	return b
}

// baseV1 is the same without markers: v1, clip table 64-127, sockets 128-159,
// strings 160-171, pad 172-175, palette 176-815, socket data 816-1055.
func baseV1(t testing.TB) []byte {
	b := write(t, testContents(0, 2, []int{2, 3}, false, []Socket{{"s", 1, [3]float32{0, 0, 1}}}))
	if len(b) != 1056 {
		t.Fatalf("v1 base is %d bytes, want 1056", len(b))
	}
	return b
}

// parse is Parse for formattest.Rules.
func parse(b []byte, opts ...formats.Option) ([]*formats.FormatError, error) {
	f, err := Parse(b, opts...)
	if err != nil {
		return nil, err
	}
	return f.Warnings(), nil
}

func TestValidationRules(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	formattest.Rules(t, baseFile, parse, []formattest.Case{
		{Name: "truncated header", Mutate: func(b le) le { return b[:40] }, Rule: formats.RuleTruncated, Offset: -1},
		{Name: "truncated palette", Mutate: func(b le) le { return b[:900] }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "magic", Mutate: func(b le) le { b[0] = 'X'; return b }, Rule: formats.RuleMagic, Offset: -1},
		{Name: "version 3", Mutate: func(b le) le { b.U32(4, 3); return b }, Rule: formats.RuleVersion, Offset: -1},
		{Name: "version 0", Mutate: func(b le) le { b.U32(4, 0); return b }, Rule: formats.RuleVersion, Offset: -1},
		{Name: "unknown species", Mutate: func(b le) le { b.U32(8, 9); return b }, Rule: formats.RuleSpecies, Offset: 8, Lenient: true},
		{Name: "no bones", Mutate: func(b le) le { b.U32(12, 0); return b }, Rule: RuleBoneCount, Offset: -1},
		{Name: "65 bones", Mutate: func(b le) le { b.U32(12, 65); return b }, Rule: RuleBoneCount, Offset: -1},
		{Name: "no clips", Mutate: func(b le) le { b.U32(20, 0); return b }, Rule: formats.RuleClipCount, Offset: -1},
		{Name: "empty clip", Mutate: func(b le) le { b.U32(108+8, 0); return b }, Rule: formats.RuleFrameCount, Offset: -1},
		{Name: "frame offset gap", Mutate: func(b le) le { b.U32(108+12, 3); return b }, Rule: formats.RuleFrameOffset, Offset: -1},
		{Name: "frame total", Mutate: func(b le) le { b.U32(24, 4); return b }, Rule: formats.RuleFrameTotal, Offset: -1},
		{Name: "huge frame total", Mutate: func(b le) le { b.U32(24, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "huge clip count", Mutate: func(b le) le { b.U32(20, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "huge bones and frames", Mutate: func(b le) le { b.U32(12, math.MaxUint32); b.U32(24, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "string table past end", Mutate: func(b le) le { b.U64(48, 1<<62); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "palette offset overflow", Mutate: func(b le) le { b.U64(56, math.MaxUint64-15); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "name past string table", Mutate: func(b le) le { b.U32(64, 200); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "name length overflow", Mutate: func(b le) le { b.U32(64+4, math.MaxUint32); return b }, Rule: formats.RuleBounds, Offset: -1},
		{Name: "strings before sockets", Mutate: func(b le) le { b.U64(48, 64); return b }, Rule: formats.RuleSectionOrder, Offset: -1},
		{Name: "palette overlaps strings", Mutate: func(b le) le { b.U64(56, 192); return b }, Rule: formats.RuleOverlap, Offset: -1, Lenient: true},
		{Name: "palette misaligned", Mutate: func(b le) le { b.U64(56, 200); return b }, Rule: formats.RuleAlignment, Offset: -1},
		{Name: "v1 string table misaligned", Base: baseV1, Mutate: func(b le) le { b.U64(48, 164); return b }, Rule: formats.RuleAlignment, Offset: -1},
		{Name: "socket offset without sockets", Mutate: func(b le) le { b.U32(16, 0); return b }, Rule: RuleSocketTable, Offset: -1},
		{Name: "sockets without offset", Mutate: func(b le) le { b.U64(40, 0); return b }, Rule: RuleSocketTable, Offset: -1},
		{Name: "name without NUL", Mutate: func(b le) le { b[188] = 'x'; return b }, Rule: formats.RuleName, Offset: -1},
		{Name: "name with NUL", Mutate: func(b le) le { b.U32(64+4, 9); return b }, Rule: formats.RuleName, Offset: -1},
		{Name: "name not UTF-8", Mutate: func(b le) le { b[184] = 0xff; return b }, Rule: formats.RuleName, Offset: -1},
		{Name: "anchor bone", Mutate: func(b le) le { b.U32(152+8, 2); return b }, Rule: RuleAnchorBone, Offset: -1},
		{Name: "clip pad byte", Mutate: func(b le) le { b[64+21] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: -1, Lenient: true},
		{Name: "v1 clip reserved", Base: baseV1, Mutate: func(b le) le { b[64+30] = 7; return b }, Rule: formats.RuleZeroBytes, Offset: -1, Lenient: true},
		{Name: "socket reserved", Mutate: func(b le) le { b[152+24] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: -1, Lenient: true},
		{Name: "gap before palette", Mutate: func(b le) le { b[200] = 1; return b }, Rule: formats.RuleZeroBytes, Offset: -1, Lenient: true},
		{Name: "marker above 1", Mutate: func(b le) le { b.F32(108+32, 1.5); return b }, Rule: RuleMarker, Offset: -1, Lenient: true},
		{Name: "marker NaN", Mutate: func(b le) le { b.F32(108+24, nan); return b }, Rule: RuleMarker, Offset: -1, Lenient: true},
		{Name: "marker -0.5", Mutate: func(b le) le { b.F32(64+40, -0.5); return b }, Rule: RuleMarker, Offset: -1, Lenient: true},
		{Name: "fps zero", Mutate: func(b le) le { b.F32(64+16, 0); return b }, Rule: RuleFPS, Offset: -1, Lenient: true},
		{Name: "fps negative", Mutate: func(b le) le { b.F32(64+16, -24); return b }, Rule: RuleFPS, Offset: -1, Lenient: true},
		{Name: "fps NaN", Mutate: func(b le) le { b.F32(108+16, nan); return b }, Rule: RuleFPS, Offset: -1, Lenient: true},
		{Name: "fps Inf", Mutate: func(b le) le { b.F32(108+16, inf); return b }, Rule: RuleFPS, Offset: -1, Lenient: true},
		{Name: "loops 2", Mutate: func(b le) le { b[64+20] = 2; return b }, Rule: RuleLoops, Offset: -1},
		{Name: "trailing byte", Mutate: func(b le) le { return append(b, 0) }, Rule: formats.RuleTrailingBytes, Offset: -1, Lenient: true},
		// Strict means strict: finite floats and the canonical layout.
		{Name: "palette NaN", Mutate: func(b le) le { b.F32(208+4*5, nan); b.F32(208+4*9, inf); return b }, Rule: formats.RuleFloat, Offset: 228, Lenient: true},
		{Name: "socket data -Inf", Mutate: func(b le) le { b.F32(848+8, -inf); return b }, Rule: formats.RuleFloat, Offset: 856, Lenient: true},
		{Name: "socket offset NaN", Mutate: func(b le) le { b.F32(152+16, nan); return b }, Rule: formats.RuleFloat, Offset: 168, Lenient: true},
		{Name: "clip table after a gap", Mutate: func(b le) le { return b.Insert(64, 16, 32, 40, 48, 56) }, Rule: formats.RuleLayout, Offset: 32, Lenient: true},
		{Name: "socket table after a gap", Mutate: func(b le) le { return b.Insert(152, 16, 40, 48, 56) }, Rule: formats.RuleLayout, Offset: 40, Lenient: true},
		{Name: "string table after a gap", Mutate: func(b le) le { return b.Insert(184, 16, 48, 56) }, Rule: formats.RuleLayout, Offset: 48, Lenient: true},
		{Name: "palette a boundary late", Mutate: func(b le) le { return b.Insert(208, 16, 56) }, Rule: formats.RuleLayout, Offset: 56, Lenient: true},
		{Name: "v1 palette a boundary late", Base: baseV1, Mutate: func(b le) le { return b.Insert(176, 32, 56) }, Rule: formats.RuleLayout, Offset: 56, Lenient: true},
	})
}

func TestValidationReportsEveryProblem(t *testing.T) {
	b := le(baseFile(t))
	b.U32(8, 9)            // species
	b.F32(64+16, 0)        // fps of clip 0
	b.U32(152+8, 5)        // anchor
	b = append(b, 1, 2, 3) // trailing
	_, err := Parse(b, formattest.Builtin)
	ve := formattest.Validation(t, err)
	for _, r := range []string{formats.RuleSpecies, RuleFPS, RuleAnchorBone, formats.RuleTrailingBytes} {
		if !ve.HasRule(r) {
			t.Errorf("%s not reported in %v", r, err)
		}
	}
	if len(ve.Problems) != 4 {
		t.Errorf("%d problems, want 4: %v", len(ve.Problems), err)
	}
}

func TestKnownSpecies(t *testing.T) { formattest.KnownSpecies(t, baseFile(t), parse) }

// TestNonFiniteFloats: one problem names the first bad float and counts them all,
// and SkipFloatScan leaves the scan out.
func TestNonFiniteFloats(t *testing.T) {
	b := le(baseFile(t))
	for _, k := range []int{7, 8, 100, 159} { // palette floats (the block is 160 floats)
		b.U32(208+4*k, 0x7f800001) // a signalling NaN
	}
	_, err := Parse(b, formats.Name("nan.bpat"))
	formattest.Problem(t, err, "nan.bpat", formats.RuleFloat, 208+4*7, "palette", "4 of its floats")
	if _, err := Parse(b, formats.SkipFloatScan()); err != nil {
		t.Errorf("SkipFloatScan still scans: %v", err)
	}
}

func TestLenientPlaysUnalignedOverlap(t *testing.T) {
	// The palette overlapping the strings still reads from where the header says.
	b := le(baseFile(t))
	b.U64(56, 192)
	if f, err := Parse(b, formats.Lenient()); err != nil {
		t.Fatal(err)
	} else if got := f.Palette(0, 0)[1]; math.Float32bits(got) != uint32(b[196])|uint32(b[197])<<8|uint32(b[198])<<16|uint32(b[199])<<24 {
		t.Fatalf("palette float 1 = %v, not the bytes at 196", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(baseFile(f))
	f.Add(baseV1(f))
	f.Add([]byte("BPAT"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, opts := range [][]Option{nil, {formats.Lenient()}} {
			file, err := Parse(b, opts...)
			if err != nil {
				continue
			}
			// Whatever validates must be fully readable without panicking.
			pal := make([]float32, file.BoneCount()*16)
			soc := make([]float32, len(file.Sockets())*12)
			for c, cl := range file.Clips() {
				file.Palette(c, cl.FrameCount-1)
				file.SocketData(c, 0)
				file.Sample(c, 0.7, pal, soc)
				file.ClipIndex(cl.Name)
			}
			file.Sections()
			file.PaletteBytes()
			file.SocketDataBytes()
		}
	})
}

// A file cut short says so, with where the section it stops in would end
// (the base file's socket data, 848-1087 by the layout above): issue 45
// round 4, 2nd walk, item 3 ("runs past the end of the 900-byte file" left a
// user to guess why).
func TestTruncatedSaysCutShort(t *testing.T) {
	_, err := Parse(baseFile(t)[:900], formats.Name("x.bpat"))
	const want = "would end at byte 1088, but the file ends at byte 900: it is cut short"
	if ve, ok := err.(*formats.ValidationError); !ok || !ve.HasRule(formats.RuleBounds) || !strings.Contains(err.Error(), want) {
		t.Errorf("%v; want a bounds error saying %q", err, want)
	}
}
