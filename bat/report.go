package bat

import (
	"bytes"
	"math"

	"encoding/json"
	"encoding/xml"
	"fmt"
	"github.com/bonebake/bonebake/rig"
	"strings"
)

// Report is <name>.bat.json (docs/formats/bat.md §6): everything a shader or an
// importer needs to decode the files.
type Report struct {
	Preset       string `json:"preset"`
	Bones        int    `json:"bones"`
	Vertices     int    `json:"vertices"`
	Rows         int    `json:"rows"`
	ReferenceRow int    `json:"reference_row"`
	// Reference is the pose of the reference row and of the mesh: "bind", or for
	// gametools "start" or "end" (the add-on's frame_ref_mode); ReferenceFrame is
	// that frame's index in the clip stack (−1 for the bind pose).
	Reference      string `json:"reference"`
	ReferenceFrame int    `json:"reference_frame"`
	// Columns lists the joint (palette index) of each texture column: every joint
	// for raw and ue, the joints that carry weight in first-use order for gametools.
	Columns []int `json:"columns,omitempty"`
	// GameTools holds the gametools preset's settings, as the add-on names them.
	GameTools *ReportGameTools `json:"gametools,omitempty"`
	Padding   int              `json:"padding"`
	Stacked   bool             `json:"stacked"`
	InvertV   bool             `json:"invert_v"`
	Up        string           `json:"up"` // "y", or "z" after the +90° turn about x
	// Units is the unit of raw and ue positions, offsets and ranges: UnitsM
	// or UnitsCM (Options.Centimetres); the mesh is in metres either way.
	// Empty for gametools, whose unit_scale says.
	Units    string       `json:"units,omitempty"`
	Clips    []ReportClip `json:"clips"`
	Position TextureInfo  `json:"position"`
	Rotation TextureInfo  `json:"rotation"`
	Skin     SkinInfo     `json:"skin"`
	Mesh     string       `json:"mesh"`
	// RenormalizedVertices counts the source vertices whose weights did not sum
	// to 1 (off by more than 0.001) before the skin texture renormalized them.
	RenormalizedVertices int      `json:"renormalized_vertices"`
	MaxError             MaxError `json:"max_error"`
}

// The units of Report.Units.
const (
	UnitsM  = "m"
	UnitsCM = "cm"
)

// ReportClip is one clip of the stack: its first row (≥ 1) and frame count.
type ReportClip struct {
	Name     string  `json:"name"`
	FirstRow int     `json:"first_row"`
	Frames   int     `json:"frames"`
	FPS      float64 `json:"fps"`
	Loops    bool    `json:"loops"`
}

// ReportGameTools are the add-on settings a gametools bake used (§7.1): the
// texture space is Blender's (glTF's (x, −z, y)) with the Invert axes negated and
// positions multiplied by UnitScale.
type ReportGameTools struct {
	UnitScale   float64 `json:"unit_scale"`
	Invert      [3]bool `json:"unit_invert_xyz"`
	RefPadding  bool    `json:"frame_ref_padding"`
	PaddingMode string  `json:"frame_padding_mode"`
	Remap       bool    `json:"remapping"`
}

// TextureInfo says where a bone texture is and how its channels decode.
type TextureInfo struct {
	File string `json:"file"`
	Mode string `json:"mode,omitempty"` // rotation only: quaternion or axis_angle
	// AngleUnit is the unit of a gametools axis_angle angle: "unit" (turns),
	// "degrees" or "radians"; empty means radians.
	AngleUnit string    `json:"angle_unit,omitempty"`
	Offset    []float64 `json:"offset"`
	Range     []float64 `json:"range"`
	Encoding  string    `json:"encoding"`
	Width     int       `json:"width"`
	Height    int       `json:"height"`
}

// SkinInfo says where the skin texture is; unorm indices decode as c·IndexScale.
type SkinInfo struct {
	File       string  `json:"file"`
	Width      int     `json:"width"`
	Height     int     `json:"height"`
	IndexScale float64 `json:"index_scale"`
	Encoding   string  `json:"encoding"`
}

// MaxError is the verification's result, in model units (metres): the largest
// distance of a decoded bone position, and of a rebuilt vertex, from the source.
type MaxError struct {
	Position float64 `json:"position"`
	Vertex   float64 `json:"vertex"`
}

// JSON returns the report as written to <name>.bat.json.
func (r *Report) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

// ReadReport parses a <name>.bat.json file; name is used in errors.
func ReadReport(name string, b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(r.Position.Offset) != 3 || len(r.Position.Range) != 3 || len(r.Rotation.Offset) != 4 || len(r.Rotation.Range) != 4 {
		return nil, fmt.Errorf("%s: position needs 3 and rotation 4 offsets and ranges", name)
	}
	return &r, nil
}

// bakedDataXML is the gametools preset's XML report, in the shape of the Blender
// baker's BakedData export: unit, frames, mesh bounds, and each texture with its
// rows and the meaning, offset and range of each channel.
func bakedDataXML(in *Input, r *Report) []byte {
	type channel struct {
		Name   string  `xml:"name,attr"`
		Data   string  `xml:"data,attr"`
		Offset float64 `xml:"offset,attr"`
		Range  float64 `xml:"range,attr"`
	}
	type texture struct {
		Name     string    `xml:"name,attr"`
		File     string    `xml:"file,attr"`
		Width    int       `xml:"width,attr"`
		Height   int       `xml:"height,attr"`
		Rows     int       `xml:"rows,attr"`
		Encoding string    `xml:"encoding,attr"`
		Channels []channel `xml:"Channel"`
	}
	type clip struct {
		Name     string  `xml:"name,attr"`
		FirstRow int     `xml:"firstRow,attr"`
		Frames   int     `xml:"frames,attr"`
		FPS      float64 `xml:"fps,attr"`
		Loops    bool    `xml:"loops,attr"`
	}
	type vec struct {
		X float64 `xml:"x,attr"`
		Y float64 `xml:"y,attr"`
		Z float64 `xml:"z,attr"`
	}
	type baked struct {
		XMLName xml.Name `xml:"BakedData"`
		Unit    string
		Up      string
		Frames  struct {
			Reference int    `xml:"reference,attr"`
			Count     int    `xml:"count,attr"`
			Padding   int    `xml:"padding,attr"`
			Clips     []clip `xml:"Clip"`
		}
		Mesh struct {
			File     string `xml:"file,attr"`
			Vertices int    `xml:"vertices,attr"`
			UVMap    string `xml:"uvMap,attr"`
			Min      vec    `xml:"BoundsMin"`
			Max      vec    `xml:"BoundsMax"`
		}
		Textures []texture `xml:"Textures>Texture"`
	}
	var d baked
	d.Unit, d.Up = "meter", strings.ToUpper(r.Up)
	d.Frames.Count, d.Frames.Padding = r.Rows-1, r.Padding
	for _, c := range r.Clips {
		d.Frames.Clips = append(d.Frames.Clips, clip(c))
	}
	d.Mesh.File, d.Mesh.Vertices, d.Mesh.UVMap = r.Mesh, r.Vertices, "TEXCOORD_1"
	sp := reportSpace(r)
	if sp.gt {
		d.Unit = fmt.Sprintf("meter/%g", sp.s) // unit_scale 100: centimetres
	}
	lo := rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := rig.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range in.Mesh.Positions {
		v := sp.point(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	d.Mesh.Min, d.Mesh.Max = vec{lo[0], lo[1], lo[2]}, vec{hi[0], hi[1], hi[2]}
	chans := func(data []string, ti TextureInfo) []channel {
		var cs []channel
		for i, n := range data {
			cs = append(cs, channel{string("RGBA"[i]), n, ti.Offset[i], ti.Range[i]})
		}
		return cs
	}
	rotData := []string{"Rotation Axis X", "Rotation Axis Y", "Rotation Axis Z", "Rotation Angle"}
	if r.Rotation.Mode == Quaternion {
		rotData = []string{"Quaternion X", "Quaternion Y", "Quaternion Z", "Quaternion W"}
	}
	d.Textures = []texture{
		{"Position", r.Position.File, r.Position.Width, r.Position.Height, r.Rows, r.Position.Encoding,
			chans([]string{"Position X", "Position Y", "Position Z"}, r.Position)},
		{"Rotation", r.Rotation.File, r.Rotation.Width, r.Rotation.Height, r.Rows, r.Rotation.Encoding, chans(rotData, r.Rotation)},
		{"Skinning", r.Skin.File, r.Skin.Width, r.Skin.Height, r.Skin.Height, r.Skin.Encoding, []channel{
			{"RGBA", "Bone Indices (even rows), Bone Weights (odd rows)", 0, r.Skin.IndexScale}}},
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	enc.Encode(d)
	b.WriteByte('\n')
	return b.Bytes()
}
