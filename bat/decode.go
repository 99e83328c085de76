package bat

// DecodeTexture reads a texture file written with the given encoding (Float32,
// Float16, Unorm16 or Unorm8) into its stored channel values c, before the
// report's c·range + offset (docs/formats/bat.md §4): floats as stored (half
// floats widened exactly), unorm codes divided by their maximum. channels is 3
// for the position texture and 4 for the others. A renderer uses it to sample
// exactly what the files hold.
func DecodeTexture(name string, b []byte, encoding string, channels int) (*Texture, error) {
	return decodeTexture(name, b, encoding, channels)
}

// ReadMesh reads the output mesh's bind-pose positions and TEXCOORD_1 (each
// vertex's skin texel centre, §5).
func ReadMesh(name string, b []byte) (pos [][3]float32, uv1 [][2]float32, err error) {
	return readMeshGLB(name, b)
}
