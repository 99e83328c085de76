package bat

import (
	"strings"
	"testing"
)

// TestUnknownFormatNamed: a format that is none of the four (--format jpg) is
// refused as unknown, listing the four, whatever the preset; raw said its floats
// did not fit "format jpg" and ue that "format jpg does not" store unorm, as if
// jpg were a format that exists.
func TestUnknownFormatNamed(t *testing.T) {
	for _, p := range []Preset{Raw, GameTools, UE} {
		err := (&Options{Preset: p, Format: "jpg"}).Resolve()
		if err == nil || !strings.Contains(err.Error(), `unknown format "jpg": want exr, exr16, png16 or png8`) {
			t.Errorf("preset %s, format jpg: %v", p, err)
		}
	}
	// a format that exists but not for the preset is still told so
	if err := (&Options{Preset: Raw, Format: PNG8}).Resolve(); err == nil || !strings.Contains(err.Error(), "preset raw stores unnormalized floats") {
		t.Errorf("raw, png8: %v", err)
	}
}
