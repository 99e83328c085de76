package bpx

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
)

// A package's or a texture's BPXSD metadata that does not decode is refused
// under the rule the BPXSD decoder names (here depth), not "type", with the
// section and the byte within it.
func TestMetadataRule(t *testing.T) {
	// 40 nested arrays, past MaxDepth (32); the decoder's own test makes 1000.
	deep := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}
	deep = append(deep, bytes.Repeat([]byte{13, 1}, 40)...)
	deep = append(deep, 0)

	pkg, err := Encode(TypePackage, PackageExt{}.TypeExt(), []SectionBytes{
		{Type: SectionObjectTable, Data: []byte{}, Check: WeakCheck},
		{Type: SectionBPXSD, Data: deep, Check: WeakCheck},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadPackage(openBytes(t, pkg))
	checkSDRule(t, "package", err, 1)

	tex, err := EncodeTexture(&Texture{Format: RGBA8, Width: 2, Height: 2, Pixels: make([]byte, 16)}, NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	f := openBytes(t, tex)
	r, err := f.Section(0)
	if err != nil {
		t.Fatal(err)
	}
	var pixels bytes.Buffer
	if _, err := pixels.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	tex, err = Encode(TypeTexture, f.Header.TypeExt, []SectionBytes{
		{Type: SectionPixels, Data: pixels.Bytes(), Check: WeakCheck},
		{Type: SectionBPXSD, Data: deep, Check: WeakCheck},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadTexture(openBytes(t, tex))
	checkSDRule(t, "texture", err, 1)
}

func checkSDRule(t *testing.T, what string, err error, section int) {
	t.Helper()
	var fe *formats.FormatError
	if !errors.As(err, &fe) || fe.Rule != RuleDepth || fe.Index != section || !strings.Contains(fe.Detail, "nest deeper than 32") || !strings.Contains(fe.Detail, "byte ") {
		t.Errorf("%s with metadata nested too deep: %v; want rule %s in section %d", what, err, RuleDepth, section)
	}
}
