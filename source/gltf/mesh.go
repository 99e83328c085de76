package gltf

import (
	"fmt"
	"math"
	"sort"

	qgltf "github.com/qmuntal/gltf"
)

// mesh merges the primitives of mesh mi into one triangle list and says which
// indices came from which primitive (materials are left for the caller).
func (d *document) mesh(mi, jointCount int) (*Mesh, []Part, error) {
	type prim struct {
		pos, nrm, uv, wgt []float32
		jnt, idx          []uint32
	}
	var prims []prim
	has := map[string]bool{}
	total := 0
	for pi, p := range d.doc.Meshes[mi].Primitives {
		what := label("mesh", mi, d.doc.Meshes[mi].Name) + fmt.Sprintf(" primitive %d", pi)
		if p.Mode != qgltf.PrimitiveTriangles {
			return nil, nil, d.fail(RuleMesh, "%s has mode %s; only TRIANGLES is supported", what, p.Mode)
		}
		posAcc, ok := p.Attributes[qgltf.POSITION]
		if !ok {
			return nil, nil, d.fail(RuleMesh, "%s has no POSITION", what)
		}
		var q prim
		var err error
		if q.pos, err = d.floats(posAcc, what+" POSITION", specVec3); err != nil {
			return nil, nil, err
		}
		if err := d.allFinite(q.pos, what+" POSITION"); err != nil {
			return nil, nil, err
		}
		n := len(q.pos) / 3
		attr := func(name string, spec accessorSpec, width int, dst *[]float32) error {
			acc, ok := p.Attributes[name]
			if !ok {
				return nil
			}
			f, err := d.floats(acc, what+" "+name, spec)
			if err != nil {
				return err
			}
			if len(f) != n*width {
				return d.fail(RuleMesh, "%s: %s has %d elements but POSITION has %d", what, name, len(f)/width, n)
			}
			if err := d.allFinite(f, what+" "+name); err != nil {
				return err
			}
			has[name] = true
			*dst = f
			return nil
		}
		if err := attr(qgltf.NORMAL, specVec3, 3, &q.nrm); err != nil {
			return nil, nil, err
		}
		if err := attr(qgltf.TEXCOORD_0, specUV, 2, &q.uv); err != nil {
			return nil, nil, err
		}
		if err := attr(qgltf.WEIGHTS_0, specWeights, 4, &q.wgt); err != nil {
			return nil, nil, err
		}
		if acc, ok := p.Attributes[qgltf.JOINTS_0]; ok {
			if q.jnt, err = d.uints(acc, what+" JOINTS_0", specJoints); err != nil {
				return nil, nil, err
			}
			if len(q.jnt) != 4*n {
				return nil, nil, d.fail(RuleMesh, "%s: JOINTS_0 has %d elements but POSITION has %d", what, len(q.jnt)/4, n)
			}
			for k, j := range q.jnt {
				if int(j) >= jointCount {
					return nil, nil, d.fail(RuleMesh, "%s: vertex %d uses joint %d, but the skin has %d joints", what, k/4, j, jointCount)
				}
			}
			has[qgltf.JOINTS_0] = true
		}
		if p.Indices != nil {
			if q.idx, err = d.uints(*p.Indices, what+" indices", specIndices); err != nil {
				return nil, nil, err
			}
			for k, ix := range q.idx {
				if int(ix) >= n {
					return nil, nil, d.fail(RuleMesh, "%s: index %d is %d, but there are %d vertices", what, k, ix, n)
				}
			}
		} else {
			if err := d.charge(int64(n)*4, what+" indices"); err != nil {
				return nil, nil, err
			}
			q.idx = make([]uint32, n)
			for k := range q.idx {
				q.idx[k] = uint32(k)
			}
		}
		if len(q.idx)%3 != 0 {
			return nil, nil, d.fail(RuleMesh, "%s: %d indices is not a whole number of triangles", what, len(q.idx))
		}
		if int64(total)+int64(n) > math.MaxUint32 {
			return nil, nil, d.fail(RuleMesh, "mesh %d has more than 2^32 vertices", mi)
		}
		total += n
		prims = append(prims, q)
	}

	indices := 0
	for _, q := range prims {
		indices += len(q.idx)
	}
	perVertex := 12 + 12 + 8 + 8 + 16 // the merged attributes, whichever are present
	if err := d.charge(int64(total)*int64(perVertex)+int64(indices)*4, label("mesh", mi, d.doc.Meshes[mi].Name)+" merged"); err != nil {
		return nil, nil, err
	}
	m := &Mesh{Positions: make([][3]float32, 0, total)}
	if has[qgltf.NORMAL] {
		m.Normals = make([][3]float32, 0, total)
	}
	if has[qgltf.TEXCOORD_0] {
		m.UVs = make([][2]float32, 0, total)
	}
	if has[qgltf.JOINTS_0] {
		m.Joints = make([][4]uint16, 0, total)
	}
	if has[qgltf.WEIGHTS_0] {
		m.Weights = make([][4]float32, 0, total)
	}
	parts := make([]Part, len(prims))
	for k, q := range prims {
		parts[k] = Part{First: len(m.Indices), Count: len(q.idx)}
		base := uint32(len(m.Positions))
		n := len(q.pos) / 3
		for v := 0; v < n; v++ {
			m.Positions = append(m.Positions, [3]float32(q.pos[3*v:]))
			if m.Normals != nil {
				var x [3]float32
				if q.nrm != nil {
					x = [3]float32(q.nrm[3*v:])
				}
				m.Normals = append(m.Normals, x)
			}
			if m.UVs != nil {
				var x [2]float32
				if q.uv != nil {
					x = [2]float32(q.uv[2*v:])
				}
				m.UVs = append(m.UVs, x)
			}
			if m.Joints != nil {
				var x [4]uint16
				if q.jnt != nil {
					for k := range x {
						x[k] = uint16(q.jnt[4*v+k])
					}
				}
				m.Joints = append(m.Joints, x)
			}
			if m.Weights != nil {
				var x [4]float32
				if q.wgt != nil {
					x = [4]float32(q.wgt[4*v:])
				}
				m.Weights = append(m.Weights, x)
			}
		}
		for _, ix := range q.idx {
			m.Indices = append(m.Indices, base+ix)
		}
	}
	return m, parts, nil
}

// allFinite refuses NaN and infinite vertex data.
func (d *document) allFinite(f []float32, what string) error {
	for k, v := range f {
		if !finite(float64(v)) {
			return d.fail(RuleMesh, "%s: component %d is %v", what, k, v)
		}
	}
	return nil
}

// sortedKeys returns a map's keys in order (for deterministic reports).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
