package bpsm

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DecodeVertex decodes one 56-byte vertex record, such as one of the VertexCount
// records of a FrameBytes slice. It decodes explicitly, so it works on any host.
// It panics if b is shorter than VertexSize.
func DecodeVertex(b []byte) Vertex {
	_ = b[VertexSize-1]
	le := binary.LittleEndian
	f := func(off int) float32 { return math.Float32frombits(le.Uint32(b[off:])) }
	var v Vertex
	for k := range v.Position {
		v.Position[k] = f(vertexPosition + 4*k)
		v.Normal[k] = f(vertexNormal + 4*k)
	}
	v.UV[0], v.UV[1] = f(vertexUV), f(vertexUV+4)
	copy(v.Joints[:], b[vertexJoints:vertexJoints+4])
	for k := range v.Weights {
		v.Weights[k] = f(vertexWeights + 4*k)
	}
	v.Role = b[vertexRole]
	return v
}

// putVertex encodes v into b[:VertexSize], pad bytes zero.
func putVertex(b []byte, v *Vertex) {
	_ = b[VertexSize-1]
	le := binary.LittleEndian
	put := func(off int, x float32) { le.PutUint32(b[off:], math.Float32bits(x)) }
	for k := range v.Position {
		put(vertexPosition+4*k, v.Position[k])
		put(vertexNormal+4*k, v.Normal[k])
	}
	put(vertexUV, v.UV[0])
	put(vertexUV+4, v.UV[1])
	copy(b[vertexJoints:vertexJoints+4], v.Joints[:])
	for k := range v.Weights {
		put(vertexWeights+4*k, v.Weights[k])
	}
	b[vertexRole] = v.Role
	b[vertexPad], b[vertexPad+1], b[vertexPad+2] = 0, 0, 0
}

// vertexProblem checks the per-vertex rules that the writer enforces and
// File.CheckVertices verifies: every float finite, every weight in [0,1], and the
// weights summing to 1 within WeightTolerance (or all zero: a vertex without skin
// data). It returns the broken rule, the byte offset of the offending field within
// the record, and a description; rule is "" when v is fine.
func vertexProblem(v *Vertex) (rule string, field int, detail string) {
	floats := func(name string, off int, xs []float32) bool {
		for k, x := range xs {
			if !finite32(x) {
				rule, field, detail = RuleVertexFloat, off+4*k, fmt.Sprintf("%s[%d] is %v; it must be finite", name, k, x)
				return false
			}
		}
		return true
	}
	if !floats("position", vertexPosition, v.Position[:]) || !floats("normal", vertexNormal, v.Normal[:]) ||
		!floats("uv", vertexUV, v.UV[:]) || !floats("weight", vertexWeights, v.Weights[:]) {
		return rule, field, detail
	}
	sum := float32(0)
	for k, w := range v.Weights {
		if w < 0 || w > 1 {
			return RuleWeights, vertexWeights + 4*k, fmt.Sprintf("weight[%d] is %v, outside [0,1]", k, w)
		}
		sum += w
	}
	if sum != 0 && (sum < 1-WeightTolerance || sum > 1+WeightTolerance) {
		return RuleWeights, vertexWeights, fmt.Sprintf("weights sum to %v, not 1 (or 0 for a vertex without skin data)", sum)
	}
	return "", 0, ""
}
