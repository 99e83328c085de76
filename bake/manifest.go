package bake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"bonebake/format/bpat"

	"gopkg.in/yaml.v3"
)

// Manifest says what to bake from a source: the seed's SpeciesManifest. It is what
// `bonebake bake --manifest FILE` reads (YAML); flags fill in what it leaves out.
type Manifest struct {
	SpeciesID uint32 `yaml:"species_id"`
	Name      string `yaml:"name"`
	// FPS is the default frame rate of clips that do not set their own (default 30).
	FPS float64 `yaml:"fps"`
	// Loops is the default loop flag of clips that do not set their own (default true).
	Loops   *bool            `yaml:"loops"`
	Clips   []ManifestClip   `yaml:"clips"`
	Sockets []ManifestSocket `yaml:"sockets"`
}

// ManifestClip is one output clip. With no clips listed, every source animation is
// baked under its own name.
type ManifestClip struct {
	Name    string             `yaml:"name"`   // output name
	Source  string             `yaml:"source"` // source animation (default: Name)
	FPS     float64            `yaml:"fps"`
	Loops   *bool              `yaml:"loops"`
	Start   float64            `yaml:"start"` // seconds into the source
	End     float64            `yaml:"end"`   // 0: the source's end
	Markers map[string]float32 `yaml:"markers"`
}

// ManifestSocket is an attachment point on a named bone.
type ManifestSocket struct {
	Name   string     `yaml:"name"`
	Bone   string     `yaml:"bone"`
	Offset [3]float32 `yaml:"offset"`
}

// ReadManifest parses a YAML manifest; unknown keys are errors, so typos surface.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return &m, nil
}

// Job resolves the manifest's names against a source: the rig (with the names of
// its palette bones, in palette order) and the source's motions.
func (m *Manifest) Job(r Rig, boneNames []string, motions []Motion) (*Job, error) {
	fps := m.FPS
	if fps == 0 {
		fps = 30
	}
	loops := m.Loops == nil || *m.Loops
	j := &Job{SpeciesID: m.SpeciesID, Rig: r, Motions: motions}
	clips := m.Clips
	if len(clips) == 0 {
		for _, mo := range motions {
			clips = append(clips, ManifestClip{Name: mo.Name})
		}
	}
	for i, mc := range clips {
		src := mc.Source
		if src == "" {
			src = mc.Name
		}
		mi := slices.IndexFunc(motions, func(mo Motion) bool { return mo.Name == src })
		if mi < 0 {
			mi = slices.IndexFunc(motions, func(mo Motion) bool { return mo.Name == LegacyClipName(src) })
		}
		if mi < 0 {
			return nil, fmt.Errorf("manifest clip %d %q: no source animation %q (the source has: %s)", i, mc.Name, src, motionNames(motions))
		}
		c := Clip{Name: mc.Name, Motion: mi, FPS: mc.FPS, Loops: loops, Start: mc.Start, End: mc.End, Markers: bpat.NoMarkers()}
		if c.Name == "" {
			c.Name = src
		}
		if c.FPS == 0 {
			c.FPS = fps
		}
		if mc.Loops != nil {
			c.Loops = *mc.Loops
		}
		for name, v := range mc.Markers {
			k := slices.Index(bpat.MarkerNames(), name)
			if k < 0 {
				return nil, fmt.Errorf("manifest clip %q: unknown marker %q (markers: %s)", c.Name, name, strings.Join(bpat.MarkerNames(), ", "))
			}
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("manifest clip %q: marker %s = %v must be a phase in [0,1]", c.Name, name, v)
			}
			c.Markers[k] = v
		}
		j.Clips = append(j.Clips, c)
	}
	for _, s := range m.Sockets {
		b := slices.Index(boneNames, s.Bone)
		if b < 0 {
			return nil, fmt.Errorf("manifest socket %q: no bone %q", s.Name, s.Bone)
		}
		j.Sockets = append(j.Sockets, Socket{Name: s.Name, Bone: b, Offset: s.Offset})
	}
	return j, nil
}

// LegacyClipName maps the name bonebake once gave an unnamed glTF animation,
// "animation3", to the one it gives now and three.js uses, "animation_3"; any
// other name is returned as it is.
func LegacyClipName(name string) string {
	digits := strings.TrimPrefix(name, "animation")
	if digits == name || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return name
	}
	return "animation_" + digits
}

func motionNames(ms []Motion) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = fmt.Sprintf("%q", m.Name)
	}
	return strings.Join(names, ", ")
}
