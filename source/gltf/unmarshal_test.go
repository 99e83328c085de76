package gltf

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	qgltf "github.com/qmuntal/gltf"
)

// unmarshalDocument gives what json.Unmarshal into a qgltf.Document gives, the
// document or the error, for the real models' JSON and for documents that are
// broken in each way the shortcut has to notice: no asset, a null one, one
// without a version or with an empty one, bad syntax, trailing bytes, wrong
// types at the top and inside an accessor, a missing required field.
func TestUnmarshalDocument(t *testing.T) {
	docs := []string{
		`{"asset":{"version":"2.0"}}`,
		` {"asset":{"version":"2.0","generator":"x"},"nodes":[{"name":"a","rotation":[0,0,0,1]}],"scene":0} `,
		`{"nodes":[{}]}`,
		`{"asset":null}`,
		`{"asset":{}}`,
		`{"asset":{"version":""}}`,
		`{"asset":{"version":2}}`,
		`{"asset":{"version":"2.0"},"nodes":5}`,
		`{"asset":{"version":"2.0"},"accessors":[{"count":1,"type":"VEC3"}]}`,
		`{"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"count":1,"type":"VEC9"}]}`,
		`{"asset":{"version":"2.0"}} x`,
		`{"asset":{"version":"2.0"}`,
		`null`,
		`[]`,
		`"asset"`,
		``,
	}
	for _, name := range []string{"Fox.glb", "CesiumMan.gltf", "SimpleSkin.gltf", "RiggedSimple.gltf"} {
		path := testfiles.Path(t, "gltf", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := &document{path: path}
		j, _, _, err := d.splitContainer(data)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(j))
	}
	for i, text := range docs {
		want := new(qgltf.Document)
		wantErr := json.Unmarshal([]byte(text), want)
		got, err := unmarshalDocument([]byte(text))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("document %d (%.60q): error %v, json.Unmarshal says %v", i, text, err, wantErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("document %d (%.60q): a different document than json.Unmarshal's", i, text)
		}
	}
}
