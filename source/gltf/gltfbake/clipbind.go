// A clip file put on a character (docs/formats/gltf.md §7): its nodes matched
// to the character's bones by joint name, the rest offsets checked, and every
// track moved onto its bone (bindClipFile).

package gltfbake

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// bound is a clip file put on a character: its animations on the character's
// bones, and the notes to print.
type bound struct {
	clips []anim.Animation
	notes []string
}

// bindClipFile matches cf's nodes to m's bones, checks that the matched joints'
// rest offsets agree (unless retarget) and moves every track onto its bone.
func bindClipFile(m *gltf.Model, cf *gltf.ClipFile, retarget bool) (*bound, error) {
	skel := m.Skeleton
	fail := func(format string, args ...any) error {
		return &gltf.Error{Format: cf.Format, File: cf.Path, Rule: gltf.RuleClipFit, Detail: fmt.Sprintf(format, args...)}
	}
	boneOf := matchNodes(skel.Names, cf.Nodes)
	isJoint := make([]bool, skel.Len())
	for _, b := range m.Joints {
		isJoint[b] = true
	}
	// A root joint has no joint above it: its translation is where the body
	// is (root motion), not a bone's length.
	root := make([]bool, skel.Len())
	for b := range root {
		root[b] = isJoint[b]
		for p := skel.Parents[b]; p >= 0 && root[b]; p = skel.Parents[p] {
			root[b] = !isJoint[p]
		}
	}
	matchedJoints := 0
	for _, b := range boneOf {
		if b >= 0 && isJoint[b] {
			matchedJoints++
		}
	}
	if matchedJoints == 0 {
		// Only named nodes can bind (a BVH file's space node has no name).
		named := 0
		for _, n := range cf.Nodes {
			if n.Name != "" {
				named++
			}
		}
		return nil, fail("none of its %s is named as a joint of %s (%s …): it animates another skeleton",
			words.Plural(named, "named node"), filepath.Base(m.Path), strings.Join(m.JointNames[:min(3, len(m.JointNames))], ", "))
	}
	// Most of what a clip file animates must be the character's: a few names
	// in common ("Head" past a prefix) bind another skeleton's motion to
	// joints it was not made for.
	animated, binds := map[int]bool{}, 0
	for _, a := range cf.Animations {
		for _, tr := range a.Tracks {
			if !animated[tr.Bone] {
				animated[tr.Bone] = true
				if boneOf[tr.Bone] >= 0 {
					binds++
				}
			}
		}
	}
	if float64(binds) < MinBound*float64(len(animated)) {
		return nil, fail("only %d of the %s it animates are nodes of %s, fewer than %.0f%%: it animates another skeleton",
			binds, words.Plural(len(animated), "node"), filepath.Base(m.Path), MinBound*100)
	}
	charRest := skel.RestModelSpace()
	size := jointsSize(m, charRest)
	nodeOf := make([]int, skel.Len())
	for b := range nodeOf {
		nodeOf[b] = -1
	}
	for n, b := range boneOf {
		if b >= 0 {
			nodeOf[b] = n
		}
	}
	// charScale and clipScale are the uniform scale a node's parent applies to
	// its offset at rest: offsets are compared in the scene's units, whatever
	// the armature's scale.
	charScale := func(b int) float64 {
		if p := skel.Parents[b]; p >= 0 {
			return uniformScale(charRest[p])
		}
		return 1
	}
	clipScale := func(n int) float64 {
		if p := cf.Nodes[n].Parent; p >= 0 {
			return uniformScale(cf.RestGlobal(p))
		}
		return 1
	}
	tol := FitTolerance * size
	// The offset a clip file gives a joint is its translation channel's value
	// where that holds still (Mixamo keys every joint's offset), its rest
	// translation where it has none; a joint whose translation moves (a pelvis
	// under a root joint at the floor) is exempt as a root is: its rest is
	// only where the motion starts.
	offset := make([]rig.Vec3, len(cf.Nodes))
	moves := make([]bool, len(cf.Nodes))
	for n := range cf.Nodes {
		offset[n] = cf.Nodes[n].Rest.Translation
	}
	held := make([]bool, len(cf.Nodes))
	for _, a := range cf.Animations {
		for _, tr := range a.Tracks {
			if tr.Path != anim.Translation {
				continue
			}
			n, step := tr.Bone, 3
			if tr.Interpolation == anim.CubicSpline {
				step = 9
			}
			first := 0 // the first key's value: its element 1 of 3 in a cubic spline
			if step == 9 {
				first = 3
			}
			v0 := rig.Vec3{float64(tr.Values[first]), float64(tr.Values[first+1]), float64(tr.Values[first+2])}
			cs := clipScale(n)
			for k := first; k+2 < len(tr.Values); k += step {
				v := rig.Vec3{float64(tr.Values[k]), float64(tr.Values[k+1]), float64(tr.Values[k+2])}
				if v.Sub(v0).Len()*cs > tol {
					moves[n] = true
				}
			}
			if !held[n] {
				offset[n], held[n] = v0, true
			}
		}
	}
	if !retarget {
		var differ []string
		var charLen, clipLen float64 // the compared offsets' lengths, for a hint of other units
		for b := range skel.Len() {
			n := nodeOf[b]
			if n < 0 || !isJoint[b] {
				continue
			}
			if p, q := skel.Parents[b], cf.Nodes[n].Parent; (p >= 0 && nodeOf[p] >= 0 || q >= 0 && boneOf[q] >= 0) && (p < 0 || nodeOf[p] != q) {
				differ = append(differ, fmt.Sprintf("%s (its parent is %s in the clip file, %s in the character)", skel.Names[b], clipNodeName(cf, q), boneName(skel, p)))
				continue
			}
			if root[b] || moves[n] {
				continue
			}
			c, k := skel.Rest[b].Translation.Scale(charScale(b)), offset[n].Scale(clipScale(n))
			charLen, clipLen = charLen+c.Len(), clipLen+k.Len()
			if d := c.Sub(k).Len(); d > tol {
				differ = append(differ, fmt.Sprintf("%s by %.3g m", skel.Names[b], d))
			}
		}
		if len(differ) > 0 {
			shown := differ[:min(4, len(differ))]
			more := ""
			if len(differ) > len(shown) {
				more = fmt.Sprintf(" and %d more", len(differ)-len(shown))
			}
			if r := clipLen / charLen; charLen > 0 && (r > 1.5 || r < 1/1.5) {
				more += fmt.Sprintf(" (its bones are %.3g× the character's: another unit, or another body)", r)
			}
			verb := "differ"
			if len(differ) == 1 {
				verb = "differs"
			}
			return nil, fail("its skeleton is not %s's: %s %s from the character's at rest by more than %g%% of the character's size (%.3g m): %s%s; Settings.Retarget takes its rotations alone",
				filepath.Base(m.Path), words.Plural(len(differ), "joint"), verb, FitTolerance*100, size, strings.Join(shown, ", "), more)
		}
	}
	if retarget {
		// Rotations are copied as they are, which is right only where the
		// joints' frames agree: a joint's bones (its children's offsets) must
		// point alike in both files, within MaxFrameAngle. Bodies of other
		// proportions differ by a few degrees (X Bot's hips are 10° off
		// Y Bot's); an exporter that orients joints otherwise, by 90° or 180°.
		var differ []string
		for c := range skel.Len() {
			p, n := skel.Parents[c], nodeOf[c]
			if p < 0 || n < 0 || !isJoint[c] || !isJoint[p] || nodeOf[p] < 0 || cf.Nodes[n].Parent != nodeOf[p] || moves[n] {
				continue
			}
			a, b := skel.Rest[c].Translation, offset[n]
			if a.Len()*charScale(c) < 1e-3*size || b.Len()*clipScale(n) < 1e-3*size {
				continue // too short to point anywhere
			}
			if ang := math.Acos(max(-1, min(1, a.Normalize().Dot(b.Normalize())))) * 180 / math.Pi; ang > MaxFrameAngle {
				differ = append(differ, fmt.Sprintf("%s's bone to %s by %.0f°", skel.Names[p], skel.Names[c], ang))
			}
		}
		if len(differ) > 0 {
			more := ""
			if len(differ) > 3 {
				more = fmt.Sprintf(" and %d more", len(differ)-3)
			}
			if cf.Unoriented {
				// Its joints were put in the character's frames (orientLike):
				// what still differs is the pose at rest.
				return nil, fail("its rest pose is not %s's, and its rotations are turns from its rest pose: %s point elsewhere at rest (more than %d°): %s%s; export it from a rig in the character's rest pose (docs/formats/bvh.md §6)",
					filepath.Base(m.Path), words.Plural(len(differ), "bone"), MaxFrameAngle, strings.Join(differ[:min(3, len(differ))], ", "), more)
			}
			return nil, fail("its joints are oriented otherwise than %s's, so their rotations cannot be copied: %s point elsewhere in their joint's frame (more than %d°): %s%s; export the clips from a rig with the character's joint orientations",
				filepath.Base(m.Path), words.Plural(len(differ), "bone"), MaxFrameAngle, strings.Join(differ[:min(3, len(differ))], ", "), more)
		}
	}
	out := &bound{}
	// A root joint's channels are carried over in the scene's space: the nodes
	// above it (an armature) may be turned or scaled otherwise in the clip
	// file, and under retarget its travel is scaled by the ratio of hip heights.
	roots := map[int]rootMap{}
	body := 0.0 // the first root joint's ratio of hip heights (0: none measured)
	for b := range skel.Len() {
		n := nodeOf[b]
		if !root[b] || n < 0 {
			continue
		}
		ratio := 1.0
		if retarget {
			charLen, clipLen, ok := hipHeights(m, cf, b, nodeOf, charRest)
			if ok {
				ratio = charLen / clipLen
				if body == 0 {
					body = ratio
				}
				out.notes = append(out.notes, fmt.Sprintf("%s: Settings.Retarget: rotations from the file, offsets from %s's rest; %s's travel ×%.4g, the ratio of hip heights (the bones from the hips down: %.3g m in the character, %.3g m in the file)",
					filepath.Base(cf.Path), filepath.Base(m.Path), skel.Names[b], ratio, charLen, clipLen))
			} else {
				out.notes = append(out.notes, fmt.Sprintf("%s: Settings.Retarget: no joint below %s is in both skeletons to measure hip height by; its travel is taken unscaled", filepath.Base(cf.Path), skel.Names[b]))
			}
		}
		pc, pk := rig.IdentityMat4(), rig.IdentityMat4()
		if p := skel.Parents[b]; p >= 0 {
			pc = charRest[p]
		}
		if q := cf.Nodes[n].Parent; q >= 0 {
			pk = cf.RestGlobal(q)
		}
		roots[b] = newRootMap(pc, pk, ratio)
	}
	lacking := map[string]int{}
	for _, a := range cf.Animations {
		c := anim.Animation{Name: a.Name, Start: a.Start, Duration: a.Duration}
		for _, tr := range a.Tracks {
			n, b := tr.Bone, boneOf[tr.Bone]
			if b < 0 {
				lacking[clipNodeName(cf, n)]++
				continue
			}
			tr.Bone = b
			rm, isRoot := roots[b]
			switch {
			case isRoot && tr.Path != anim.Scale:
				tr.Values = rm.apply(tr.Path, tr.Interpolation, tr.Values)
			case retarget && tr.Path == anim.Translation && moves[n]:
				// A joint that moves below the root (a pelvis) keeps its
				// motion, scaled as the root's travel is.
				k := clipScale(n) / charScale(b)
				if body > 0 {
					k *= body
				}
				tr.Values = scaled(tr.Values, k)
			case retarget && tr.Path != anim.Rotation:
				continue // the character's own offsets and scales
			case tr.Path == anim.Translation:
				// Offsets are compared in the scene's units; the channel is
				// in its parent's, which may be scaled otherwise (an armature
				// at 0.01 over centimetres, or none over metres).
				if k := clipScale(n) / charScale(b); math.Abs(k-1) > 1e-6 {
					tr.Values = scaled(tr.Values, k)
				}
			}
			c.Tracks = append(c.Tracks, tr)
		}
		out.clips = append(out.clips, c)
	}
	if len(lacking) > 0 {
		names := make([]string, 0, len(lacking))
		channels := 0
		for n, k := range lacking {
			names = append(names, n)
			channels += k
		}
		slices.Sort(names)
		shown := names[:min(5, len(names))]
		more := ""
		if len(names) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(names)-len(shown))
		}
		out.notes = append(out.notes, fmt.Sprintf("%s: ignored %s on %s that %s lacks (%s%s)",
			filepath.Base(cf.Path), words.Plural(channels, "channel"), words.Plural(len(names), "node"), filepath.Base(m.Path), strings.Join(shown, ", "), more))
	}
	return out, nil
}

// matchNodes returns, per clip node, the bone of the same name (-1: none):
// exactly first, then, for the bones and nodes still unmatched, by the name
// after its namespace prefix (the text up to the last ':'), when that name is
// unique on both sides. Nodes without a name match nothing.
func matchNodes(bones []string, nodes []gltf.ClipNode) []int {
	boneOf := make([]int, len(nodes))
	byName := make(map[string]int, len(bones))
	for b, name := range bones {
		byName[name] = b
	}
	taken := make([]bool, len(bones))
	seen := map[string]int{}
	for _, n := range nodes {
		seen[n.Name]++
	}
	for n, node := range nodes {
		boneOf[n] = -1
		if b, ok := byName[node.Name]; ok && node.Name != "" && seen[node.Name] == 1 {
			boneOf[n], taken[b] = b, true
		}
	}
	local := func(name string) string { return name[strings.LastIndex(name, ":")+1:] }
	bonesBy := map[string][]int{}
	for b, name := range bones {
		if !taken[b] {
			bonesBy[local(name)] = append(bonesBy[local(name)], b)
		}
	}
	nodesBy := map[string][]int{}
	for n, node := range nodes {
		if boneOf[n] < 0 && node.Name != "" {
			nodesBy[local(node.Name)] = append(nodesBy[local(node.Name)], n)
		}
	}
	for name, ns := range nodesBy {
		if bs := bonesBy[name]; name != "" && len(ns) == 1 && len(bs) == 1 {
			boneOf[ns[0]] = bs[0]
		}
	}
	return boneOf
}

func clipNodeName(cf *gltf.ClipFile, n int) string {
	switch {
	case n < 0:
		return "none"
	case cf.Nodes[n].Name == "":
		return fmt.Sprintf("node%d", n)
	}
	return cf.Nodes[n].Name
}

func boneName(s *rig.Skeleton, b int) string {
	if b < 0 {
		return "none"
	}
	return s.Names[b]
}
