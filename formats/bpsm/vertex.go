package bpsm

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DecodeVertex decodes one 56-byte vertex record, such as one of the VertexCount
// records of a FrameBytes slice. It decodes explicitly, so it works on any host.
// It panics if b is shorter than VertexSize.
func DecodeVertex(b []byte) (v Vertex) {
	decodeVertex(&v, b)
	return v
}

// decodeVertex is DecodeVertex into *v: filling the caller's Vertex in place costs
// about half as much as returning one (a 56-byte result travels on the stack).
func decodeVertex(v *Vertex, b []byte) {
	b = b[:VertexSize]
	v.Position = [3]float32{f32(b[vertexPosition:]), f32(b[vertexPosition+4:]), f32(b[vertexPosition+8:])}
	v.Normal = [3]float32{f32(b[vertexNormal:]), f32(b[vertexNormal+4:]), f32(b[vertexNormal+8:])}
	v.UV = [2]float32{f32(b[vertexUV:]), f32(b[vertexUV+4:])}
	v.Joints = [4]uint8{b[vertexJoints], b[vertexJoints+1], b[vertexJoints+2], b[vertexJoints+3]}
	v.Weights = [4]float32{f32(b[vertexWeights:]), f32(b[vertexWeights+4:]), f32(b[vertexWeights+8:]), f32(b[vertexWeights+12:])}
	v.Role = b[vertexRole]
}

// f32 decodes a little-endian float32.
func f32(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

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
