package bpat

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Layout of the base file (worked out from FACTS §1.3): v2, 2 bones, clips "idle"
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

func TestValidationRules(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name    string
		v1      bool
		mutate  func(b le) le
		rule    string
		lenient bool // the game's reader accepts it
	}{
		{"truncated header", false, func(b le) le { return b[:40] }, RuleTruncated, false},
		{"truncated palette", false, func(b le) le { return b[:900] }, RuleBounds, false},
		{"magic", false, func(b le) le { b[0] = 'X'; return b }, RuleMagic, false},
		{"version 3", false, func(b le) le { b.u32(4, 3); return b }, RuleVersion, false},
		{"version 0", false, func(b le) le { b.u32(4, 0); return b }, RuleVersion, false},
		{"unknown species", false, func(b le) le { b.u32(8, 9); return b }, RuleSpecies, false},
		{"no bones", false, func(b le) le { b.u32(12, 0); return b }, RuleBoneCount, false},
		{"65 bones", false, func(b le) le { b.u32(12, 65); return b }, RuleBoneCount, false},
		{"no clips", false, func(b le) le { b.u32(20, 0); return b }, RuleClipCount, false},
		{"empty clip", false, func(b le) le { b.u32(108+8, 0); return b }, RuleFrameCount, false},
		{"frame offset gap", false, func(b le) le { b.u32(108+12, 3); return b }, RuleFrameOffset, false},
		{"frame total", false, func(b le) le { b.u32(24, 4); return b }, RuleFrameTotal, false},
		{"huge frame total", false, func(b le) le { b.u32(24, math.MaxUint32); return b }, RuleBounds, false},
		{"huge clip count", false, func(b le) le { b.u32(20, math.MaxUint32); return b }, RuleBounds, false},
		{"huge bones and frames", false, func(b le) le { b.u32(12, math.MaxUint32); b.u32(24, math.MaxUint32); return b }, RuleBounds, false},
		{"string table past end", false, func(b le) le { b.u64(48, 1<<62); return b }, RuleBounds, false},
		{"palette offset overflow", false, func(b le) le { b.u64(56, math.MaxUint64-15); return b }, RuleBounds, false},
		{"name past string table", false, func(b le) le { b.u32(64, 200); return b }, RuleBounds, false},
		{"name length overflow", false, func(b le) le { b.u32(64+4, math.MaxUint32); return b }, RuleBounds, false},
		{"strings before sockets", false, func(b le) le { b.u64(48, 64); return b }, RuleSectionOrder, false},
		{"palette overlaps strings", false, func(b le) le { b.u64(56, 192); return b }, RuleOverlap, true},
		{"palette misaligned", false, func(b le) le { b.u64(56, 200); return b }, RuleAlignment, false},
		{"v1 string table misaligned", true, func(b le) le { b.u64(48, 164); return b }, RuleAlignment, false},
		{"socket offset without sockets", false, func(b le) le { b.u32(16, 0); return b }, RuleSocketTable, false},
		{"sockets without offset", false, func(b le) le { b.u64(40, 0); return b }, RuleSocketTable, false},
		{"name without NUL", false, func(b le) le { b[188] = 'x'; return b }, RuleName, false},
		{"name with NUL", false, func(b le) le { b.u32(64+4, 9); return b }, RuleName, false},
		{"name not UTF-8", false, func(b le) le { b[184] = 0xff; return b }, RuleName, false},
		{"anchor bone", false, func(b le) le { b.u32(152+8, 2); return b }, RuleAnchorBone, false},
		{"clip pad byte", false, func(b le) le { b[64+21] = 1; return b }, RuleZeroBytes, true},
		{"v1 clip reserved", true, func(b le) le { b[64+30] = 7; return b }, RuleZeroBytes, true},
		{"socket reserved", false, func(b le) le { b[152+24] = 1; return b }, RuleZeroBytes, true},
		{"gap before palette", false, func(b le) le { b[200] = 1; return b }, RuleZeroBytes, true},
		{"marker above 1", false, func(b le) le { b.f32(108+32, 1.5); return b }, RuleMarker, true},
		{"marker NaN", false, func(b le) le { b.f32(108+24, nan); return b }, RuleMarker, true},
		{"marker -0.5", false, func(b le) le { b.f32(64+40, -0.5); return b }, RuleMarker, true},
		{"fps zero", false, func(b le) le { b.f32(64+16, 0); return b }, RuleFPS, true},
		{"fps negative", false, func(b le) le { b.f32(64+16, -24); return b }, RuleFPS, true},
		{"fps NaN", false, func(b le) le { b.f32(108+16, nan); return b }, RuleFPS, true},
		{"fps Inf", false, func(b le) le { b.f32(108+16, inf); return b }, RuleFPS, true},
		{"loops 2", false, func(b le) le { b[64+20] = 2; return b }, RuleLoops, false},
		{"trailing byte", false, func(b le) le { return append(b, 0) }, RuleTrailingBytes, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var base []byte
			if tc.v1 {
				base = baseV1(t)
			} else {
				base = baseFile(t)
			}
			b := tc.mutate(le(base))
			_, err := Parse(b, Name("bad.bpat"))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("accepted (err = %v)", err)
			}
			if !ve.HasRule(tc.rule) {
				t.Fatalf("rule %s not reported: %v", tc.rule, err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != "bad.bpat" {
				t.Fatalf("no FormatError naming the file: %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "bad.bpat") || !strings.Contains(msg, "offset") || !strings.Contains(msg, tc.rule) {
				t.Fatalf("message does not name file, offset and rule: %s", msg)
			}
			_, lerr := Parse(b, Lenient())
			if tc.lenient && lerr != nil {
				t.Fatalf("lenient mode rejects what the game accepts: %v", lerr)
			}
			if !tc.lenient && lerr == nil {
				t.Fatal("lenient mode accepts it")
			}
		})
	}
}

func TestValidationReportsEveryProblem(t *testing.T) {
	b := le(baseFile(t))
	b.u32(8, 9)            // species
	b.f32(64+16, 0)        // fps of clip 0
	b.u32(152+8, 5)        // anchor
	b = append(b, 1, 2, 3) // trailing
	_, err := Parse(b)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	for _, r := range []string{RuleSpecies, RuleFPS, RuleAnchorBone, RuleTrailingBytes} {
		if !ve.HasRule(r) {
			t.Errorf("%s not reported in %v", r, err)
		}
	}
	if len(ve.Problems) != 4 {
		t.Errorf("%d problems, want 4: %v", len(ve.Problems), err)
	}
}

func TestRegisteredSpecies(t *testing.T) {
	b := le(baseFile(t))
	b.u32(8, 42)
	if _, err := Parse(b); err == nil {
		t.Fatal("species 42 accepted without registration")
	}
	if _, err := Parse(b, Species(42)); err != nil {
		t.Fatal(err)
	}
}

func TestLenientPlaysUnalignedOverlap(t *testing.T) {
	// The palette overlapping the strings still reads from where the header says.
	b := le(baseFile(t))
	b.u64(56, 192)
	f, err := Parse(b, Lenient())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Palette(0, 0)[1], math.Float32frombits(uint32(b[196])|uint32(b[197])<<8|uint32(b[198])<<16|uint32(b[199])<<24); math.Float32bits(got) != math.Float32bits(want) {
		t.Fatalf("palette float 1 = %v, want the bytes at 196 (%v)", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(baseFile(f))
	f.Add(baseV1(f))
	f.Add([]byte("BPAT"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, opts := range [][]Option{nil, {Lenient()}} {
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
