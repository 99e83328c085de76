package fbx

import "testing"

// FuzzParse: any bytes give a file or an error, never a panic or a hang, and
// a file's scene builds or is refused.
func FuzzParse(f *testing.F) {
	f.Add(file(7400, sample()...))
	f.Add(file(7500, sample()...))
	f.Add([]byte(asciiSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		fl, err := Parse(b)
		if err != nil {
			return
		}
		fl.Scene()
	})
}
