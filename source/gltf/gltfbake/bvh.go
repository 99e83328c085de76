package gltfbake

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/rig"
	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/gltf"
)

// orientLike re-expresses an unoriented clip file's joints (docs/formats/bvh.md
// §6) in the frames of the character's joints they bind to: node n, bound to
// bone b, is given a frame change F(n) = Rk(n)⁻¹·Rc(b) (the global rest
// rotations in the file and in the character), so that its global rest
// rotation becomes the character's; its rest, and every key of its channels,
// become L′ = F(parent)⁻¹·L·F(n), t′ = F(parent)⁻¹·t. The file's poses in the
// scene are unchanged: only the frames its local values are written in turn.
// Afterwards its local rotations are the character's, to be copied as a glTF
// clip file's are.
func orientLike(m *gltf.Model, cf *gltf.ClipFile) (note string) {
	boneOf := matchNodes(m.Skeleton.Names, cf.Nodes)
	charRest := m.Skeleton.RestModelSpace()
	n := len(cf.Nodes)
	if k := facing(cf, boneOf, charRest); k != 0 {
		// The file faces otherwise than the character: its space is turned
		// about the vertical by k quarter turns, so that the body at rest
		// faces as the character does and its travel goes forward for it.
		yaw := rig.QuatFromAxisAngle(rig.Vec3{0, 1, 0}, float64(k)*math.Pi/2)
		for i := range cf.Nodes {
			if r := &cf.Nodes[i].Rest; cf.Nodes[i].Parent < 0 {
				r.Rotation, r.Translation = yaw.Mul(r.Rotation).Normalize(), yaw.Rotate(r.Translation)
			}
		}
		note = fmt.Sprintf("%s: faces otherwise than %s at rest: turned by %d° about the vertical to face as it does (docs/formats/bvh.md §6)",
			filepath.Base(cf.Path), filepath.Base(m.Path), k*90)
	}
	gk := make([]rig.Quat, n)
	frame := make([]rig.Quat, n)
	for i, nd := range cf.Nodes {
		gk[i] = nd.Rest.Rotation
		if nd.Parent >= 0 {
			gk[i] = gk[nd.Parent].Mul(nd.Rest.Rotation).Normalize()
		}
		frame[i] = rig.IdentityQuat()
		if b := boneOf[i]; b >= 0 {
			rc, _ := rig.Decompose(charRest[b])
			frame[i] = gk[i].Conjugate().Mul(rc.Rotation).Normalize()
		}
	}
	parentFrame := func(i int) rig.Quat {
		if p := cf.Nodes[i].Parent; p >= 0 {
			return frame[p].Conjugate()
		}
		return rig.IdentityQuat()
	}
	for i := range cf.Nodes {
		r := &cf.Nodes[i].Rest
		fp := parentFrame(i)
		r.Rotation = fp.Mul(r.Rotation).Mul(frame[i]).Normalize()
		r.Translation = fp.Rotate(r.Translation)
	}
	for a := range cf.Animations {
		for t := range cf.Animations[a].Tracks {
			tr := &cf.Animations[a].Tracks[t]
			fp, fn := parentFrame(tr.Bone), frame[tr.Bone]
			vs := make([]float32, len(tr.Values))
			switch tr.Path {
			case anim.Rotation:
				for e := 0; e+4 <= len(vs); e += 4 {
					q := fp.Mul(rig.Quat{float64(tr.Values[e]), float64(tr.Values[e+1]), float64(tr.Values[e+2]), float64(tr.Values[e+3])}).Mul(fn)
					for k := range 4 {
						vs[e+k] = float32(q[k])
					}
				}
			case anim.Translation:
				for e := 0; e+3 <= len(vs); e += 3 {
					v := fp.Rotate(rig.Vec3{float64(tr.Values[e]), float64(tr.Values[e+1]), float64(tr.Values[e+2])})
					for k := range 3 {
						vs[e+k] = float32(v[k])
					}
				}
			default:
				copy(vs, tr.Values)
			}
			tr.Values = vs
		}
	}
	return note
}

// facing returns by how many quarter turns about +Y (0 to 3) the clip file's
// space should turn for its bound bones at rest to point as the character's
// do: the turn that best aligns their horizontal directions (2-D Procrustes),
// to the nearest quarter turn (files face along an axis), and 0 unless that
// aligns them clearly better than no turn.
func facing(cf *gltf.ClipFile, boneOf []int, charRest []rig.Mat4) int {
	var a, b, scale float64
	for i, nd := range cf.Nodes {
		q := nd.Parent
		if q < 0 || boneOf[i] < 0 || boneOf[q] < 0 {
			continue
		}
		dk := cf.RestGlobal(i).Translation().Sub(cf.RestGlobal(q).Translation())
		dc := charRest[boneOf[i]].Translation().Sub(charRest[boneOf[q]].Translation())
		a += dc[0]*dk[0] + dc[2]*dk[2]
		b += dc[0]*dk[2] - dc[2]*dk[0]
		scale += math.Hypot(dk[0], dk[2]) * math.Hypot(dc[0], dc[2])
	}
	if scale == 0 {
		return 0
	}
	k := int(math.Round(math.Atan2(b, a)/(math.Pi/2))) & 3
	score := func(k int) float64 { // Σ dc · R_y(k·90°) dk
		return [4]float64{a, b, -a, -b}[k]
	}
	if k == 0 || score(k)-score(0) < 0.1*scale {
		return 0
	}
	return k
}

// CheckUpUsed refuses Settings.Up where it would change nothing: it gives BVH
// files' up axis (glTF and FBX carry their own axes), and none of the models
// and clip files is a BVH file. With a manifest (Settings.Manifest, or
// NAME.yaml beside a model) its clip_files may be, so nothing is refused then;
// a file that cannot be read is left to Load, which names it.
func (s Settings) CheckUpUsed(models []string) error {
	if s.Up == "" || s.Manifest != nil {
		return nil
	}
	files := slices.Concat(models, s.ClipFiles)
	for _, f := range files {
		if ok, err := bvhsrc.IsBVH(f); err != nil || ok {
			return nil
		}
		if _, err := os.Stat(ManifestBeside(f)); err == nil {
			return nil
		}
	}
	return &bake.SettingError{Setting: "Up", ReadsOn: true, Err: fmt.Errorf("%s gives a BVH file's up axis, and none of %s is a BVH file: a glTF or FBX model carries its own axes (a model lying down bakes as it lies; turn it in the tool that made it)",
		s.Up, strings.Join(files, ", "))}
}
