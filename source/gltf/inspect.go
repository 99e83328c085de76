package gltf

import (
	"fmt"
	"slices"

	qgltf "github.com/qmuntal/gltf"
)

// Info summarizes a glTF file for `bonebake inspect`.
type Info struct {
	File       string          `json:"file"`
	Format     string          `json:"format"` // "gltf"
	Generator  string          `json:"generator,omitempty"`
	Nodes      int             `json:"nodes"`
	Extensions []ExtensionInfo `json:"extensions"`
	Skins      []SkinInfo      `json:"skins"`
	Meshes     []MeshInfo      `json:"meshes"`
	Animations []AnimationInfo `json:"animations"`
	// Notes are what Load notes of the character of skin 0 (Model.Notes: a
	// skin bound in a pose other than its rest pose); [] when none.
	Notes []string `json:"notes"`
}

// ExtensionInfo describes an extension the file uses or requires, and how
// bonebake treats it.
type ExtensionInfo struct {
	Name     string  `json:"name"`
	Required bool    `json:"required"`
	Support  Support `json:"support"`
	Why      string  `json:"why"`
}

// SkinInfo describes one skin.
type SkinInfo struct {
	Index      int      `json:"index"`
	Name       string   `json:"name,omitempty"`
	JointCount int      `json:"joint_count"`
	Joints     []string `json:"joints"`     // joint node names, palette order ("node<N>" when unnamed)
	MeshNodes  []int    `json:"mesh_nodes"` // nodes that draw a mesh with this skin
	// Character lists the mesh nodes that Load gathers into this skin's mesh
	// and how each moves with it (docs/formats/gltf.md §1.1).
	Character []Member `json:"character"`
}

// MeshInfo describes one mesh.
type MeshInfo struct {
	Index      int             `json:"index"`
	Name       string          `json:"name,omitempty"`
	Vertices   int             `json:"vertices"` // over all primitives
	Skinned    bool            `json:"skinned"`  // some primitive has JOINTS_0 and WEIGHTS_0
	Primitives []PrimitiveInfo `json:"primitives"`
	// MorphTargets names the mesh's morph targets (extras.targetNames, else
	// "target<N>"), and MorphClips the animations that animate the weights of
	// a node drawing it; neither is baked (docs/formats/gltf.md §3).
	MorphTargets []string `json:"morph_targets"`
	MorphClips   []string `json:"morph_clips"`
}

// PrimitiveInfo describes one primitive of a mesh.
type PrimitiveInfo struct {
	Mode       string   `json:"mode"`
	Vertices   int      `json:"vertices"`
	Indices    int      `json:"indices"` // 0 when not indexed
	Attributes []string `json:"attributes"`
	Skinned    bool     `json:"skinned"`
	// Material is what the viewer draws the primitive with: the material's name,
	// its base colour factor and its base colour texture's image type, or why
	// the texture is not used.
	Material MaterialInfo `json:"material"`
}

// MaterialInfo describes a primitive's base colour.
type MaterialInfo struct {
	Index     int        `json:"index"` // −1: the primitive has none
	Name      string     `json:"name,omitempty"`
	BaseColor [4]float32 `json:"base_color"`
	Texture   string     `json:"texture,omitempty"` // the image's MIME type, when there is a usable texture
	Warning   string     `json:"warning,omitempty"`
}

// AnimationInfo describes one animation.
type AnimationInfo struct {
	Index    int           `json:"index"`
	Name     string        `json:"name,omitempty"`
	Duration float64       `json:"duration_s"` // seconds: the largest key time of its channels
	Keys     int           `json:"keys"`       // keys over all channels
	Channels []ChannelInfo `json:"channels"`
}

// ChannelInfo describes one animation channel.
type ChannelInfo struct {
	Node          int    `json:"node"` // -1 when the target is not a node (an extension's)
	NodeName      string `json:"node_name,omitempty"`
	Path          string `json:"path"`
	Interpolation string `json:"interpolation"`
	Keys          int    `json:"keys"`
}

// Inspect reads the glTF or GLB file at path and summarizes its skins, meshes and
// animations. It checks what it reads as strictly as Load does.
func Inspect(path string) (*Info, error) {
	info, err := withDocument(path, "", (*document).info)
	if err != nil {
		return nil, err
	}
	info.Notes = []string{}
	// What only loading the character finds. A file Load refuses is still
	// described: bake names the refusal.
	if m, err := Load(path, Options{}); err == nil {
		info.Notes = append(info.Notes, m.Notes...)
	}
	return info, nil
}

func (d *document) info() (*Info, error) {
	doc := d.doc
	info := &Info{
		File:       d.path,
		Format:     "gltf",
		Generator:  doc.Asset.Generator,
		Nodes:      len(doc.Nodes),
		Extensions: []ExtensionInfo{},
		Skins:      []SkinInfo{},
		Meshes:     []MeshInfo{},
		Animations: []AnimationInfo{},
	}
	seen := map[string]bool{}
	for _, name := range append(append([]string(nil), doc.ExtensionsUsed...), doc.ExtensionsRequired...) {
		if !seen[name] {
			seen[name] = true
			support, why := ExtensionSupport(name)
			info.Extensions = append(info.Extensions, ExtensionInfo{Name: name, Required: d.required(name), Support: support, Why: why})
		}
	}
	for si, s := range doc.Skins {
		sk := SkinInfo{Index: si, Name: s.Name, JointCount: len(s.Joints), Joints: []string{}, MeshNodes: []int{}}
		for j, n := range s.Joints {
			if n < 0 || n >= len(doc.Nodes) {
				return nil, d.fail(RuleSkin, "skin %d joint %d is node %d, but there are %d nodes", si, j, n, len(doc.Nodes))
			}
			sk.Joints = append(sk.Joints, d.nodeName(n))
		}
		for ni, n := range doc.Nodes {
			if n.Skin != nil && *n.Skin == si && n.Mesh != nil {
				sk.MeshNodes = append(sk.MeshNodes, ni)
			}
		}
		info.Skins = append(info.Skins, sk)
	}
	for si := range info.Skins { // every skin's joints are checked: members may look at them all
		info.Skins[si].Character = append([]Member{}, d.members(si)...)
	}
	for mi, m := range doc.Meshes {
		mInfo := MeshInfo{Index: mi, Name: m.Name, Primitives: []PrimitiveInfo{}}
		for pi, p := range m.Primitives {
			what := label("mesh", mi, m.Name) + fmt.Sprintf(" primitive %d", pi)
			pInfo := PrimitiveInfo{Mode: p.Mode.String(), Attributes: sortedKeys(p.Attributes)}
			_, hasJ := p.Attributes[qgltf.JOINTS_0]
			_, hasW := p.Attributes[qgltf.WEIGHTS_0]
			pInfo.Skinned = hasJ && hasW
			pInfo.Material.Index = -1
			if p.Material != nil {
				pInfo.Material.Index = *p.Material
			}
			mat := d.material(p.Material, true, func(format string, args ...any) { pInfo.Material.Warning = fmt.Sprintf(format, args...) })
			pInfo.Material.Name, pInfo.Material.BaseColor = mat.Name, mat.BaseColor
			if mat.Texture != nil {
				pInfo.Material.Texture = mat.Texture.MIME
			}
			mInfo.Skinned = mInfo.Skinned || pInfo.Skinned
			pos, ok := p.Attributes[qgltf.POSITION]
			if !ok {
				return nil, d.fail(RuleMesh, "%s has no POSITION", what)
			}
			v, err := d.accessorView(pos, what+" POSITION")
			if err != nil {
				return nil, err
			}
			pInfo.Vertices = v.acc.Count
			if p.Indices != nil {
				iv, err := d.accessorView(*p.Indices, what+" indices")
				if err != nil {
					return nil, err
				}
				pInfo.Indices = iv.acc.Count
			}
			mInfo.Vertices += pInfo.Vertices
			mInfo.Primitives = append(mInfo.Primitives, pInfo)
		}
		mInfo.MorphTargets, mInfo.MorphClips = []string{}, []string{}
		if t := d.morphTargets(mi); t != nil {
			mInfo.MorphTargets = t
			for ni, n := range doc.Nodes {
				if n.Mesh != nil && *n.Mesh == mi {
					for _, c := range d.weightClips(ni) {
						if !slices.Contains(mInfo.MorphClips, c) {
							mInfo.MorphClips = append(mInfo.MorphClips, c)
						}
					}
				}
			}
		}
		info.Meshes = append(info.Meshes, mInfo)
	}
	// Each input accessor is read and scanned once, however many channels share it.
	type keyTimes struct {
		n   int
		end float64
	}
	inputs := map[int]keyTimes{}
	for ai, a := range doc.Animations {
		aInfo := AnimationInfo{Index: ai, Name: a.Name, Channels: []ChannelInfo{}}
		for ci, ch := range a.Channels {
			what := label("animation", ai, a.Name) + fmt.Sprintf(" channel %d", ci)
			c := ChannelInfo{Node: -1, Path: string(ch.Target.Path)}
			if ch.Target.Node != nil {
				c.Node = *ch.Target.Node
				if c.Node < 0 || c.Node >= len(doc.Nodes) {
					return nil, d.fail(RuleChannelTarget, "%s targets node %d, but there are %d nodes", what, c.Node, len(doc.Nodes))
				}
				c.NodeName = d.nodeName(c.Node)
			}
			s, err := d.sampler(ai, ci, ch.Target.Path != qgltf.TRSTranslation && ch.Target.Path != qgltf.TRSRotation && ch.Target.Path != qgltf.TRSScale)
			if err != nil {
				return nil, err
			}
			c.Interpolation = s.Interpolation.String()
			in, ok := inputs[s.Input]
			if !ok {
				times, err := d.times(s.Input, what)
				if err != nil {
					return nil, err
				}
				in.n = len(times)
				for _, t := range times {
					in.end = max(in.end, float64(t))
				}
				inputs[s.Input] = in
			}
			c.Keys = in.n
			aInfo.Duration = max(aInfo.Duration, in.end)
			aInfo.Keys += c.Keys
			aInfo.Channels = append(aInfo.Channels, c)
		}
		info.Animations = append(info.Animations, aInfo)
	}
	return info, nil
}
