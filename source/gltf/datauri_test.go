package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	qgltf "github.com/qmuntal/gltf"
)

// wholeDataURI is how a data URI was decoded before payloads were lifted out
// of the JSON text: from the string the JSON decoder gave.
func wholeDataURI(uri string) ([]byte, error) {
	header, payload, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ",")
	if !ok {
		return nil, fmt.Errorf("no comma after the media type")
	}
	if !strings.HasSuffix(header, ";base64") {
		return nil, fmt.Errorf("only base64 data URIs are supported, not %q", header)
	}
	out, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		out2, err2 := base64.RawStdEncoding.DecodeString(payload)
		if err2 != nil {
			return nil, err
		}
		out = out2
	}
	return out, nil
}

// Lifting data URIs out of the JSON text gives the document json.Unmarshal
// gives, or its error, and every buffer's and image's bytes (or error) as the
// whole string decoded gives them; and it lifts exactly the payloads it can
// stand for: the real CesiumMan's two, and in documents made to trip it (a
// payload that is a name, a uri in extras, a duplicate key, escapes, raw
// control or non-ASCII bytes, a \u0000 that could fake a placeholder, bad
// base64, syntax errors elsewhere) either the same result lifted or none lifted.
func TestLiftedDataURIs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(46, 1))
	raw := make([]byte, 6000)
	for i := range raw {
		raw[i] = byte(rnd.Uint32())
	}
	p := base64.StdEncoding.EncodeToString(raw)
	bin := `"data:application/octet-stream;base64,`
	buf := func(uri string) string {
		return `{"asset":{"version":"2.0"},"buffers":[{"uri":` + uri + `,"byteLength":6000}]}`
	}
	cesium, err := os.ReadFile(modelPath(t, "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		text   string
		lifted int
	}{
		{"buffer and image", `{"asset":{"version":"2.0"},"buffers":[{"uri":` + bin + p + `","byteLength":6000}],"images":[{"uri":"data:image/png;base64,` + p + `"}]}`, 2},
		{"white space", "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\" \n\t: " + bin + p + `" , "byteLength":6000}]}`, 1},
		{"no padding", buf(bin + strings.TrimRight(p[:len(p)-2], "=") + `"`), 1},
		{"bad base64", buf(bin + p[:3000] + "!" + p[3001:] + `"`), 1},
		{"not base64", buf(`"data:text/plain,` + p + `"`), 1},
		{"no comma", buf(`"data:` + p + `"`), 0},
		{"escaped slash", buf(bin + strings.ReplaceAll(p, "/", `\/`) + `"`), 0},
		{"escaped letter", buf(bin + `\u0041` + p[1:] + `"`), 0},
		{"raw newline", buf(bin + p[:3000] + "\n" + p[3000:] + `"`), 0},
		{"non-ASCII", buf(bin + p[:3000] + "é" + p[3000:] + `"`), 0},
		{"invalid UTF-8", buf(bin + p[:3000] + "\xff" + p[3000:] + `"`), 0},
		{"short", buf(bin + p[:400] + `"`), 0},
		{"NUL elsewhere", `{"asset":{"version":"2.0","generator":"a\u0000"},"buffers":[{"uri":` + bin + p + `","byteLength":6000}]}`, 0},
		{"fake placeholder", `{"asset":{"version":"2.0"},"buffers":[{"uri":` + bin + p + `","byteLength":6000},{"uri":"data:application/octet-stream;base64,\u00000","byteLength":1}]}`, 0},
		{"name", `{"asset":{"version":"2.0"},"buffers":[{"name":` + bin + p + `","byteLength":6000}]}`, 0},
		{"uri in extras", `{"asset":{"version":"2.0"},"buffers":[{"byteLength":6000,"extras":{"uri":` + bin + p + `"}}]}`, 0},
		{"uri in an extension", `{"asset":{"version":"2.0"},"buffers":[{"byteLength":6000,"extensions":{"X":{"uri":` + bin + p + `"}}}]}`, 0},
		{"uri at the top", `{"asset":{"version":"2.0"},"uri":` + bin + p + `"}`, 0},
		{"duplicate key", `{"asset":{"version":"2.0"},"buffers":[{"uri":` + bin + p + `","uri":"a.bin","byteLength":6000}]}`, 0},
		{"upper-case key", `{"asset":{"version":"2.0"},"buffers":[{"URI":` + bin + p + `","byteLength":6000}]}`, 0},
		{"null buffer", `{"asset":{"version":"2.0"},"buffers":[null],"images":[{"uri":"data:image/png;base64,` + p + `"}]}`, 1},
		{"syntax error after", buf(bin+p+`"`) + ",", 0},
		{"wrong type after", `{"asset":{"version":"2.0"},"buffers":[{"uri":` + bin + p + `","byteLength":"6000"}]}`, 0},
		{"no asset", `{"buffers":[{"uri":` + bin + p + `","byteLength":6000}]}`, 0},
		{"CesiumMan", string(cesium), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := []byte(c.text)
			want := new(qgltf.Document)
			wantErr := json.Unmarshal(text, want)
			d := &document{path: "x.gltf"}
			got, _, err := d.unmarshal(text)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, json.Unmarshal says %v", err, wantErr)
			}
			if len(d.lifted) != c.lifted {
				t.Errorf("%d payloads lifted, want %d", len(d.lifted), c.lifted)
			}
			if wantErr != nil {
				return
			}
			// Each data URI decodes to the same bytes or error; then the
			// document, with the placeholders put back, is json.Unmarshal's.
			same := func(what string, gotURI *string, wantURI string) {
				if !strings.HasPrefix(wantURI, "data:") {
					return
				}
				b, err := d.dataURI(*gotURI)
				wb, werr := wholeDataURI(wantURI)
				if fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(b, wb) {
					t.Errorf("%s: %d bytes, error %v; decoded whole: %d bytes, error %v", what, len(b), err, len(wb), werr)
				}
				if _, ok := d.lifted[*gotURI]; ok {
					*gotURI = wantURI
				}
			}
			for i := range got.Buffers {
				if got.Buffers[i] != nil {
					same(fmt.Sprintf("buffer %d", i), &got.Buffers[i].URI, want.Buffers[i].URI)
				}
			}
			for i := range got.Images {
				same(fmt.Sprintf("image %d", i), &got.Images[i].URI, want.Images[i].URI)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("a different document than json.Unmarshal's")
			}
		})
	}
}
