package fbx

import (
	"errors"

	"github.com/bonebake/bonebake/anim"

	"github.com/bonebake/bonebake/source/gltf"
)

// Info is what inspect says of an FBX file: the file, its character (when it
// has a skin) and its clips.
type Info struct {
	File      string     `json:"file"`
	Format    string     `json:"format"` // "fbx"
	Version   int        `json:"version"`
	Binary    bool       `json:"binary"`
	UpAxis    string     `json:"up"`
	UnitScale float64    `json:"scale"` // metres per file unit
	Models    int        `json:"models"`
	Skinned   bool       `json:"skinned"` // false: an animation-only file, a clip file
	Bones     []string   `json:"bones"`
	Meshes    []MeshInfo `json:"meshes,omitempty"`
	Clips     []ClipInfo `json:"clips"`
	Warnings  []string   `json:"notes"`
}

// MeshInfo is one mesh of the character.
type MeshInfo struct {
	Name     string `json:"name"`
	How      string `json:"how"`
	Vertices int    `json:"vertices"`
}

// ClipInfo is one animation stack with keys.
type ClipInfo struct {
	Name     string  `json:"name"`
	Start    float64 `json:"start_s"`
	End      float64 `json:"end_s"`
	Duration float64 `json:"duration_s"` // End − Start
	Bones    int     `json:"bones"`      // bones it moves
}

// Inspect reads the file at path as Load does, or as LoadClips does when it
// has no skin.
func Inspect(path string) (*Info, error) {
	s, err := open(path)
	if err != nil {
		return nil, err
	}
	info := &Info{File: path, Format: "fbx", Version: s.sc.File.Version, Binary: s.sc.File.Binary, Models: len(s.order), UnitScale: s.scale}
	info.UpAxis = [...]string{"X", "Y", "Z"}[s.sc.GlobalSettings.Int("UpAxis", 1)]
	if s.sc.GlobalSettings.Int("UpAxisSign", 1) < 0 {
		info.UpAxis = "-" + info.UpAxis
	}
	m, err := Load(path, gltf.Options{})
	var fe *Error
	switch {
	case err == nil:
		info.Skinned = true
		info.Bones = m.Skeleton.Names
		for _, mb := range m.Members {
			info.Meshes = append(info.Meshes, MeshInfo{Name: mb.Name, How: mb.How, Vertices: mb.Vertices})
		}
		for _, c := range m.Clips {
			info.Clips = append(info.Clips, clipInfo(c.Name, c.Start, c.Duration, c.Tracks))
		}
		info.Warnings = m.Warnings
	case errors.As(err, &fe) && fe.Rule == RuleSkin:
		cf, err := LoadClips(path, gltf.Options{})
		if err != nil {
			return nil, err
		}
		for _, n := range cf.Nodes {
			info.Bones = append(info.Bones, n.Name)
		}
		for _, c := range cf.Animations {
			info.Clips = append(info.Clips, clipInfo(c.Name, c.Start, c.Duration, c.Tracks))
		}
	default:
		return nil, err
	}
	if info.Bones == nil {
		info.Bones = []string{}
	}
	if info.Warnings == nil {
		info.Warnings = []string{}
	}
	if info.Clips == nil {
		info.Clips = []ClipInfo{}
	}
	return info, nil
}

func clipInfo(name string, start, end float64, tracks []anim.Track) ClipInfo {
	bones := map[int]bool{}
	for _, t := range tracks {
		bones[t.Bone] = true
	}
	return ClipInfo{Name: name, Start: start, End: end, Duration: end - start, Bones: len(bones)}
}
