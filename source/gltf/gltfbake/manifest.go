package gltfbake

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/internal/yamlread"
	"github.com/bonebake/bonebake/roster"
	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/gltf"

	"go.yaml.in/yaml/v3"
)

// Manifest says what to bake from a source: the seed's SpeciesManifest. It is what
// `bonebake bake --manifest FILE` reads (YAML); flags fill in what it leaves out.
type Manifest struct {
	// SpeciesID is the file's species id; nil leaves the choice to the caller
	// (Load takes the first id that is not built in).
	SpeciesID *uint32 `yaml:"species_id"`
	Name      string  `yaml:"name"`
	// FPS is the default frame rate of clips that do not set their own (default DefaultFPS).
	FPS float64 `yaml:"fps"`
	// Loops is the default loop flag of clips that do not set their own (default true).
	Loops   *bool            `yaml:"loops"`
	Clips   []ManifestClip   `yaml:"clips"`
	Sockets []ManifestSocket `yaml:"sockets"`
	// KeepLeadIn starts clips that give no start of their own at t = 0 instead of
	// at their first key (docs/formats/gltf.md §3).
	KeepLeadIn bool `yaml:"keep_lead_in"`
	// Scale, when not 0, bakes the model uniformly scaled: palettes, sockets
	// (their offsets are in the model's own units) and every mesh written. It
	// must be positive and finite, as Settings.Scale (gltf.CheckScale).
	Scale float64 `yaml:"scale"`
	// Face is the horizontal axis the model faces (+z, -z, +x, -x; default
	// +z): the bake turns it about +y to face +z, the runtime's heading 0
	// (docs/formats/gait.md §8).
	Face string `yaml:"face"`
	// DeformingOnly drops from the palette the joints that no vertex is weighted
	// to and no socket names.
	DeformingOnly bool `yaml:"deforming_only"`
	// MaxBones is the most bones the palette may keep (1 to 64; 0: 64, BPAT's
	// limit): a skin with more joints drops those no vertex is weighted to,
	// then merges its least important leaf joints into their parents
	// (docs/formats/gltf.md §1.4).
	MaxBones int `yaml:"max_bones"`
	// BPATVersion is the BPAT version to write: 1, 2, or 0 (the default) for v1
	// when no clip has a marker and v2 otherwise (docs/formats/bpat.md §2). A file
	// meant for Standard of Iron needs 2: its reader refuses v1.
	BPATVersion uint32 `yaml:"bpat_version"`
	// Feet name the foot bones that measure an in-place clip's ground speed, and
	// RootBone the bone whose travel is root motion (docs/formats/gait.md §2);
	// empty: found by name and hierarchy.
	Feet     []string `yaml:"feet"`
	RootBone string   `yaml:"root_bone"`
	// InPlace is the default of the clips' in_place, PlantFeet of their
	// plant_feet.
	InPlace   bool `yaml:"in_place"`
	PlantFeet bool `yaml:"plant_feet"`
	// SnapshotTriangles is the triangle budget of the far-LOD snapshot mesh
	// that bake --snapshot simplifies the model's mesh to (0: the default,
	// DefaultSnapshotTriangles); --snapshot-triangles overrides it.
	SnapshotTriangles int `yaml:"snapshot_triangles"`
	// ClipFiles are glTF files whose animations are put on the model's
	// skeleton by joint name (docs/formats/gltf.md §7), as --clips does;
	// relative paths are from the manifest's folder. Clips may name them as
	// sources, after their file when their own names are generic. Retarget
	// takes their rotations alone when their skeletons differ from the model's.
	ClipFiles []string `yaml:"clip_files"`
	Retarget  bool     `yaml:"retarget"`
	// Up is the up axis of BVH files, the model's and its clip files' ("+Z",
	// "-Y", …; empty: found from each skeleton, docs/formats/bvh.md §4), as
	// --up gives it; the flag wins.
	Up string `yaml:"up"`

	// Where it was read from, so that errors can name the file and line.
	path string
	// flagSockets counts the sockets at the end of Sockets that a caller's
	// settings added (--socket), so that errors blame the flag, not a manifest.
	flagSockets int
	// renamed gives the clip name that each of the model's take names became
	// (nameOwnClips), so that a source giving the take name still finds it.
	renamed     map[string]string
	clipLines   []int
	socketLines []int
}

// ManifestClip is one output clip. With no clips listed, every source animation is
// baked under its own name. It is not a bake.Clip, which Manifest.Job makes of
// it: it names its source animation where bake.Clip holds the motion's index,
// and its optional keys (loops, start, in_place) are pointers, unset taking the
// manifest's default.
type ManifestClip struct {
	Name   string  `yaml:"name"`   // output name
	Source string  `yaml:"source"` // source animation by name, or "#N" by index (default: Name)
	FPS    float64 `yaml:"fps"`
	Loops  *bool   `yaml:"loops"`
	// Start is the clip's start in seconds into the source; unset, the source's
	// first key (or 0 with KeepLeadIn).
	Start   *float64           `yaml:"start"`
	End     float64            `yaml:"end"` // 0: the source's end
	Markers map[string]float32 `yaml:"markers"`
	// InPlace removes the root's horizontal travel from the clip and keeps its
	// measured speed (docs/formats/gait.md §4); nil: the manifest's in_place.
	InPlace *bool `yaml:"in_place"`
	// PlantFeet locks the clip's feet to the ground while they stand
	// (docs/formats/gait.md §7); nil: the manifest's plant_feet.
	PlantFeet *bool `yaml:"plant_feet"`
	// Cycle is the seconds one pass lasts in the game (0: the clip's duration),
	// and GroundSpeed the m/s that overrides the measured speed (0: measured).
	Cycle       float64 `yaml:"cycle"`
	GroundSpeed float64 `yaml:"ground_speed"`

	motion int // the motion's index + 1 for the clips Job makes itself; 0: by Source
}

// ManifestSocket is an attachment point on a named bone.
type ManifestSocket struct {
	Name   string     `yaml:"name"`
	Bone   string     `yaml:"bone"`
	Offset [3]float32 `yaml:"offset"`
}

// ParseSocket reads a socket written NAME=BONE or NAME=BONE@x,y,z (its offset
// from the bone, in the bone's space), as a command line gives one. Its errors
// are SettingErrors of Settings.Sockets that read on after the setting's name.
func ParseSocket(s string) (ManifestSocket, error) {
	bad := func(format string, a ...any) error {
		return &bake.SettingError{Setting: "Sockets", ReadsOn: true, Err: fmt.Errorf("%q: "+format, append([]any{s}, a...)...)}
	}
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" || rest == "" {
		return ManifestSocket{}, bad("want NAME=BONE or NAME=BONE@x,y,z")
	}
	bone, offset, hasOffset := strings.Cut(rest, "@")
	ms := ManifestSocket{Name: name, Bone: bone}
	if !hasOffset {
		return ms, nil
	}
	parts := strings.Split(offset, ",")
	if len(parts) != 3 {
		return ms, bad("the offset needs three numbers x,y,z")
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
		if errors.Is(err, strconv.ErrRange) {
			return ms, bad("offset %q is outside the range of a float32 (about ±3.4e38)", p)
		}
		if err != nil {
			return ms, bad("offset %q is not a number", p)
		}
		ms.Offset[i] = float32(v)
	}
	return ms, nil
}

// ReadManifest parses a YAML manifest; unknown keys are errors, so typos surface.
// Errors name the file and line and say what was expected in plain words.
func ReadManifest(path string) (*Manifest, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := Manifest{path: path}
	if err := yamlread.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s %w", path, err)
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) == nil && len(doc.Content) == 1 {
		m.clipLines = entryLines(doc.Content[0], "clips")
		m.socketLines = entryLines(doc.Content[0], "sockets")
	}
	// A number written is a number meant: "fps: 0" must not read as "no fps".
	var given struct {
		FPS   *float64 `yaml:"fps"`
		Clips []struct {
			FPS         *float64 `yaml:"fps"`
			Cycle       *float64 `yaml:"cycle"`
			GroundSpeed *float64 `yaml:"ground_speed"`
		} `yaml:"clips"`
	}
	yaml.Unmarshal(b, &given)
	if f := given.FPS; f != nil {
		if err := bake.CheckFPS(*f); err != nil {
			return nil, fmt.Errorf("manifest %s: fps %w", path, err)
		}
	}
	if m.MaxBones != 0 {
		if err := CheckMaxBones(m.MaxBones); err != nil {
			return nil, fmt.Errorf("manifest %s: max_bones %w", path, err)
		}
	}
	if m.Up != "" {
		if err := bvhsrc.CheckUp(m.Up); err != nil {
			return nil, fmt.Errorf("manifest %s: up %w", path, err)
		}
	}
	if m.Scale != 0 {
		if err := gltf.CheckScale(m.Scale); err != nil {
			return nil, fmt.Errorf("manifest %s: scale %w", path, err)
		}
	}
	if m.Face != "" {
		if err := gltf.CheckFace(m.Face); err != nil {
			return nil, fmt.Errorf("manifest %s: face %w", path, err)
		}
	}
	if m.SnapshotTriangles != 0 { // 0: the default
		if err := checkTriangles(m.SnapshotTriangles); err != nil {
			return nil, fmt.Errorf("manifest %s: snapshot_triangles %w (0: the default, %d)", path, err, DefaultSnapshotTriangles)
		}
	}
	for i, c := range given.Clips {
		if f := c.FPS; f != nil {
			if err := bake.CheckFPS(*f); err != nil {
				return nil, fmt.Errorf("%s: fps %w", m.where("clip", i, m.clipLines), err)
			}
		}
		for _, v := range []struct {
			key string
			v   *float64
		}{{"cycle", c.Cycle}, {"ground_speed", c.GroundSpeed}} {
			if v.v == nil {
				continue
			}
			if err := checkGait(v.key, *v.v); err != nil {
				line := 0
				if i < len(m.clipLines) {
					line = m.clipLines[i]
				}
				if doc.Kind != 0 {
					line = keyLine(doc.Content[0], "clips", i, v.key, line)
				}
				return nil, fmt.Errorf("manifest %s line %d: clip %d: %w", path, line, i, err)
			}
		}
	}
	return &m, nil
}

// clipFiles returns ClipFiles with relative paths taken from the manifest's
// folder (the working folder for a manifest not read from a file).
func (m *Manifest) clipFiles() []string {
	out := make([]string, len(m.ClipFiles))
	for i, f := range m.ClipFiles {
		if m.path != "" && !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(m.path), f)
		}
		out[i] = f
	}
	return out
}

// The physical bounds of a clip's cycle and ground speed (docs/formats/gait.md
// §5): a pass shorter than a millisecond or longer than an hour, or a speed
// under a millimetre or over ten kilometres a second (in the model's units
// after --scale: 100 m/s for a model in centimetres), is a typo, and would
// overflow the sidecar's stride (ground speed × cycle) or a runtime's phase
// rate (speed / ground speed).
const (
	MinCycle       float64 = 0.001
	MaxCycle       float64 = 3600
	MinGroundSpeed float64 = 0.001
	MaxGroundSpeed float64 = 10000
)

// checkGait checks a clip's cycle or ground speed against its bounds.
func checkGait(key string, v float64) error {
	lo, hi, unit := MinCycle, MaxCycle, "s"
	if key == "ground_speed" {
		lo, hi, unit = MinGroundSpeed, MaxGroundSpeed, "m/s"
	}
	if !(v >= lo && v <= hi) {
		return fmt.Errorf("%s %v is outside [%v, %v] %s (docs/formats/gait.md §5)", key, v, lo, hi, unit)
	}
	return nil
}

// keyLine returns the line of key in the i-th entry of the list under list,
// or def when there is none.
func keyLine(root *yaml.Node, list string, i int, key string, def int) int {
	if root.Kind != yaml.MappingNode {
		return def
	}
	for k := 0; k+1 < len(root.Content); k += 2 {
		if root.Content[k].Value != list || root.Content[k+1].Kind != yaml.SequenceNode || i >= len(root.Content[k+1].Content) {
			continue
		}
		e := root.Content[k+1].Content[i]
		for j := 0; e.Kind == yaml.MappingNode && j+1 < len(e.Content); j += 2 {
			if e.Content[j].Value == key {
				return e.Content[j+1].Line
			}
		}
	}
	return def
}

// entryLines returns the line of each entry of the list under key.
func entryLines(root *yaml.Node, key string) []int {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key && root.Content[i+1].Kind == yaml.SequenceNode {
			var lines []int
			for _, e := range root.Content[i+1].Content {
				lines = append(lines, e.Line)
			}
			return lines
		}
	}
	return nil
}

// where names a manifest entry for an error: the file and line when the
// manifest was read from one, else the entry's index.
func (m *Manifest) where(what string, i int, lines []int) string {
	if m.path != "" && i < len(lines) {
		return fmt.Sprintf("manifest %s line %d: %s", m.path, lines[i], what)
	}
	return fmt.Sprintf("manifest %s %d", what, i)
}

// whereTop names the manifest for an error about a top-level key.
func (m *Manifest) whereTop() string {
	if m.path != "" {
		return "manifest " + m.path
	}
	return "manifest"
}

// Job resolves the manifest's names against a source: the rig (with the names of
// its palette bones, in palette order) and the source's motions.
func (m *Manifest) Job(r bake.Rig, boneNames []string, motions []bake.Motion) (*bake.Job, error) {
	fps := m.FPS
	if fps == 0 {
		fps = DefaultFPS
	}
	loops := m.Loops == nil || *m.Loops
	if m.BPATVersion != 0 {
		if err := bake.CheckVersion(m.BPATVersion); err != nil {
			return nil, fmt.Errorf("%s: bpat_version %w", m.whereTop(), err)
		}
	}
	j := &bake.Job{Rig: r, Motions: motions, Version: m.BPATVersion}
	if m.SpeciesID != nil {
		if err := roster.CheckID(*m.SpeciesID); err != nil {
			return nil, fmt.Errorf("%s: species_id: %w", m.whereTop(), err)
		}
		j.SpeciesID = *m.SpeciesID
	}
	clips := m.Clips
	if len(clips) == 0 {
		for i, mo := range motions { // each from its own animation, even when names repeat
			clips = append(clips, ManifestClip{Name: mo.Name, motion: i + 1})
		}
	}
	for i, mc := range clips {
		src := mc.Source
		if src == "" {
			src = mc.Name
		}
		mi := mc.motion - 1
		if mi < 0 {
			mi = slices.IndexFunc(motions, func(mo bake.Motion) bool { return mo.Name == src })
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(src, "#")); mi < 0 && strings.HasPrefix(src, "#") && err == nil {
			if k < 0 || k >= len(motions) {
				return nil, fmt.Errorf("%s %q: source %q: the source has animations #0 to #%d", m.where("clip", i, m.clipLines), mc.Name, src, len(motions)-1)
			}
			mi = k // by index: two animations may share a name
		}
		if mi < 0 {
			mi = slices.IndexFunc(motions, func(mo bake.Motion) bool { return mo.Name == LegacyClipName(src) })
		}
		if to, ok := m.renamed[src]; mi < 0 && ok {
			mi = slices.IndexFunc(motions, func(mo bake.Motion) bool { return mo.Name == to })
		}
		if mi < 0 {
			return nil, fmt.Errorf("%s %q: no source animation %q (the source has: %s)", m.where("clip", i, m.clipLines), mc.Name, src, motionNames(motions))
		}
		c := bake.Clip{Name: mc.Name, Motion: mi, FPS: mc.FPS, Loops: loops, Start: motions[mi].Start, End: mc.End, Markers: bpat.NoMarkers(),
			InPlace: m.InPlace, PlantFeet: m.PlantFeet, Cycle: mc.Cycle, GroundSpeed: mc.GroundSpeed}
		if mc.InPlace != nil {
			c.InPlace = *mc.InPlace
		}
		if mc.PlantFeet != nil {
			c.PlantFeet = *mc.PlantFeet
		}
		for _, v := range []struct {
			key string
			v   float64
		}{{"cycle", mc.Cycle}, {"ground_speed", mc.GroundSpeed}} {
			if v.v == 0 { // absent: the clip's duration; measured
				continue
			}
			if err := checkGait(v.key, v.v); err != nil {
				return nil, fmt.Errorf("%s %q: %w", m.where("clip", i, m.clipLines), c.Name, err)
			}
		}
		switch {
		case mc.Start != nil:
			c.Start = *mc.Start
		case m.KeepLeadIn:
			c.Start = 0
		}
		if c.Name == "" {
			c.Name = motions[mi].Name
		}
		if c.FPS == 0 {
			c.FPS = fps
		}
		if mc.Loops != nil {
			c.Loops = *mc.Loops
		}
		// A range past the source would bake a held pose for as long as asked.
		if d := motions[mi].Duration; mc.End > d+1e-6 || c.Start > d+1e-6 {
			return nil, fmt.Errorf("%s %q: the range [%v, %v] s runs past the end of %q, which is %.4g s long", m.where("clip", i, m.clipLines), c.Name, c.Start, mc.End, motions[mi].Name, d)
		}
		for name, v := range mc.Markers {
			k := slices.Index(bpat.MarkerNames(), name)
			if k < 0 {
				return nil, fmt.Errorf("%s %q: unknown marker %q (markers: %s)", m.where("clip", i, m.clipLines), c.Name, name, strings.Join(bpat.MarkerNames(), ", "))
			}
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("%s %q: marker %s = %v must be a phase in [0,1]", m.where("clip", i, m.clipLines), c.Name, name, v)
			}
			c.Markers[k] = v
		}
		if j.Version == 1 && c.Markers.Any() {
			return nil, fmt.Errorf("%s %q: has markers, which BPAT v1 cannot store (bpat_version 1)", m.where("clip", i, m.clipLines), c.Name)
		}
		j.Clips = append(j.Clips, c)
	}
	for i, s := range m.Sockets {
		b := slices.Index(boneNames, s.Bone)
		if b < 0 && i >= len(m.Sockets)-m.flagSockets {
			// A --socket flag's: the caller's setting, not the manifest's.
			return nil, &bake.SettingError{Setting: "Sockets", Err: fmt.Errorf("%s=%s: no bone %q; %s", s.Name, s.Bone, s.Bone, BoneChoices(s.Bone, boneNames))}
		}
		if b < 0 {
			return nil, fmt.Errorf("%s %q: no bone %q; %s", m.where("socket", i, m.socketLines), s.Name, s.Bone, BoneChoices(s.Bone, boneNames))
		}
		j.Sockets = append(j.Sockets, bake.Socket{Name: s.Name, Anchor: b, Offset: s.Offset})
	}
	return j, nil
}

// BoneChoices says which of names a user who wrote want may have meant, best
// first: the name itself case aside, then the names that are it once a rig's
// prefixes, digits and separators are stripped (boneKey: "Hips" → "b_Hip_01",
// "LeftFoot" → "mixamorig:LeftFoot"), then those that hold it or that it holds
// ("Head" → "b_Head_05"); only when none of these is there, the names a typo
// away (words.Near on the stripped names: "Haed" → "b_Head_05"). Of more than
// eight, the best alone if they are fewer; else every name when there are few,
// else how many there are and where they are listed.
func BoneChoices(want string, names []string) string {
	w, wk := strings.ToLower(want), boneKey(want)
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = boneKey(n)
	}
	rank := make([]int, len(names)) // 0 best; 3 not close
	var close []int
	for i, n := range names {
		l, k := strings.ToLower(n), keys[i]
		switch {
		case l == w:
			rank[i] = 0
		case k != "" && k == wk:
			rank[i] = 1
		case l != "" && w != "" && (strings.Contains(l, w) || strings.Contains(w, l)),
			len(k) >= 3 && len(wk) >= 3 && (strings.Contains(k, wk) || strings.Contains(wk, k)):
			rank[i] = 2
		default:
			rank[i] = 3
			continue
		}
		close = append(close, i)
	}
	slices.SortStableFunc(close, func(a, b int) int { return rank[a] - rank[b] })
	if len(close) > 8 {
		// Too many to list: the best of them, where they are few ("LeftHand"
		// → "mixamorig:LeftHand", not its fingers too).
		best := close[0]
		close = slices.DeleteFunc(close, func(i int) bool { return rank[i] > rank[best] })
	}
	if len(close) == 0 && wk != "" {
		// A typo, only where nothing holds the name: "Foot" is not "Root".
		near := words.Near(wk, keys)
		for i, k := range keys {
			if k != "" && slices.Contains(near, k) {
				close = append(close, i)
			}
		}
	}
	switch {
	case len(close) > 0 && len(close) <= 8:
		picked := make([]string, len(close))
		for j, i := range close {
			picked[j] = names[i]
		}
		return "close matches: " + strings.Join(picked, ", ")
	case len(names) <= 80:
		return fmt.Sprintf("the %d bones: %s", len(names), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%d bones (bonebake inspect MODEL lists them)", len(names))
}

// boneKey is a bone's name as BoneChoices compares it: lower case, without a
// namespace ("mixamorig:"), a "b_" prefix, digits or separators, so that rigs
// that number and prefix their bones ("b_Hip_01") meet those that do not.
func boneKey(name string) string {
	l := strings.ToLower(name)
	if i := strings.LastIndexByte(l, ':'); i >= 0 {
		l = l[i+1:]
	}
	l = strings.TrimPrefix(l, "b_")
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || strings.ContainsRune("_-. ", r) {
			return -1
		}
		return r
	}, l)
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

func motionNames(ms []bake.Motion) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = fmt.Sprintf("%q", m.Name)
	}
	return strings.Join(names, ", ")
}
