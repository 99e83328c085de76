// The mesh's materials (docs/formats/fbx.md §10): colours in linear light and
// their textures, embedded or in files beside the model.

package fbx

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/source/gltf"
)

// srgbToLinear converts one sRGB component to linear, as glTF's base colour is.
func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// material reads a Material's diffuse colour (§10) and, when asked, the image
// of the texture on it: embedded, else its file beside the FBX (inside
// filesRoot when one is given).
func (s *scene) material(o *fbxfile.Object, textures bool, filesRoot string, warn *[]string) gltf.Material {
	mat := gltf.Material{Name: o.Name, BaseColor: [4]float32{1, 1, 1, 1}}
	c := o.Props.Vec3("DiffuseColor", [3]float64{1, 1, 1})
	if o.Props["DiffuseColor"] == nil {
		c = o.Props.Vec3("Diffuse", c)
	}
	for i := range 3 {
		mat.BaseColor[i] = float32(srgbToLinear(c[i]))
	}
	if op, ok := o.Props["Opacity"].Number(0); ok && op >= 0 && op <= 1 {
		mat.BaseColor[3] = float32(op)
	}
	if !textures {
		return mat
	}
	for _, c := range s.opKids[o.ID] {
		if c.Property != "DiffuseColor" && c.Property != "Diffuse" {
			continue
		}
		tex := s.sc.ByID[c.Child]
		if tex == nil || tex.Class != "Texture" {
			continue
		}
		videos := s.objectsOf(s.children[tex.ID], "Video")
		var data []byte
		from := "embedded"
		for _, v := range videos {
			if data = embedded(v.Node.Child("Content")); len(data) > 0 {
				break
			}
		}
		if len(data) == 0 {
			var err error
			data, from, err = s.externalTexture(s.textureNames(tex, videos), filesRoot)
			if err != nil {
				*warn = append(*warn, fmt.Sprintf("material %q: texture %q is not embedded and its file cannot be read: %v: not used", o.Name, tex.Name, err))
				continue
			}
		}
		mime := imageMIME(data)
		if mime == "" {
			*warn = append(*warn, fmt.Sprintf("material %q: texture %q (%s) is neither PNG nor JPEG: not used", o.Name, tex.Name, from))
			continue
		}
		mat.Texture = &gltf.Texture{MIME: mime, Data: data, WrapS: 10497, WrapT: 10497}
		return mat
	}
	return mat
}

// embedded returns a Video's Content: raw bytes in a binary file, base64 text
// (perhaps in several strings) in an ASCII one; nil when there is none.
func embedded(n *fbxfile.Node) []byte {
	if n == nil || len(n.Props) == 0 {
		return nil
	}
	if n.Props[0].Type == 'R' {
		return n.Props[0].Raw
	}
	var text strings.Builder
	for _, p := range n.Props {
		text.WriteString(p.String)
	}
	b, err := base64.StdEncoding.DecodeString(text.String())
	if err != nil {
		return nil
	}
	return b
}
