package fbx

import (
	"bytes"
	"testing"
)

// FuzzParse: any bytes give a file or an error, never a panic or a hang, and
// a file's scene builds or is refused.
func FuzzParse(f *testing.F) {
	f.Add(file(7400, sample()...))
	f.Add(file(7500, sample()...))
	f.Add([]byte(asciiSample))
	var buf bytes.Buffer
	if fl, err := Parse(file(7400, sample()...)); err == nil && WriteASCII(&buf, fl) == nil {
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fl, err := Parse(b)
		if err != nil {
			return
		}
		fl.Scene()
	})
}
