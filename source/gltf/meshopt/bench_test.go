package meshopt

import "testing"

// The benchmarks report decoded bytes per second (b.SetBytes is the output).
func benchVector(b *testing.B, name string) {
	for _, v := range loadVectors(b) {
		if v.Name != name {
			continue
		}
		dst := make([]byte, v.Count*v.Stride)
		b.SetBytes(int64(len(dst)))
		b.ReportMetric(float64(len(v.enc))/float64(len(dst)), "ratio")
		b.ResetTimer()
		for b.Loop() {
			if err := Decode(dst, v.Count, v.Stride, v.enc, v.Mode, v.Filter); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.Fatalf("no vector %s", name)
}

func BenchmarkVertexV0(b *testing.B)    { benchVector(b, "bench_v0_8192x16") }
func BenchmarkVertexV1(b *testing.B)    { benchVector(b, "bench_v1_8192x16") }
func BenchmarkVertexNoise(b *testing.B) { benchVector(b, "vertex_v0_l2_noise_700x16") }
func BenchmarkTriangles(b *testing.B)   { benchVector(b, "triangles_big_4") }
func BenchmarkIndices(b *testing.B)     { benchVector(b, "indices_big_4") }
func BenchmarkOctahedral(b *testing.B)  { benchVector(b, "oct_v0_8_16") }
func BenchmarkQuaternion(b *testing.B)  { benchVector(b, "quat_v0_16") }
func BenchmarkExponential(b *testing.B) { benchVector(b, "exp_v0_Separate") }
