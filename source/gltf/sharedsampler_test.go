package gltf

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// manyChannels is SimpleSkin with one animation of channels channels, all on
// one sampler of keys rotation keys, targeting its two joints in turn.
func manyChannels(t *testing.T, channels, keys int) doc {
	d := simpleSkin(t)
	times, rots := make([]byte, 0, 4*keys), make([]byte, 0, 16*keys)
	for k := range keys {
		times = binary.LittleEndian.AppendUint32(times, mathFloat32bits(float32(k)/30))
		for _, v := range []float32{0, 0, float32(k%7) / 10, 1} {
			rots = binary.LittleEndian.AppendUint32(rots, mathFloat32bits(v))
		}
	}
	in := addAccessor(d, times, 5126, "SCALAR", keys, false)
	obj(d, "accessors", in)["min"], obj(d, "accessors", in)["max"] = []any{0}, []any{float32(keys-1) / 30}
	out := addAccessor(d, rots, 5126, "VEC4", keys, false)
	var chans []any
	for c := range channels {
		chans = append(chans, map[string]any{"sampler": 0, "target": map[string]any{"node": 1 + c%2, "path": "rotation"}})
	}
	d["animations"] = []any{map[string]any{
		"samplers": []any{map[string]any{"input": in, "output": out}},
		"channels": chans,
	}}
	return d
}

// TestSharedSamplerCountedOnce: many channels of one animation on one sampler
// cost that sampler's keys once, not channels × keys: loading, validating and
// preparing the clip for sampling allocate a small multiple of the file, in
// well under a second. Before, 2,000 channels on 16,384 keys reserved 2.6 GB
// in anim.Prepare (issue 42, item 8).
func TestSharedSamplerCountedOnce(t *testing.T) {
	const channels, keys = 2000, 1 << 14
	path := writeModel(t, manyChannels(t, channels, keys))
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	// What it allocates is the measure (wall time varies with the machine and
	// -race): before, 2.1 GB and 46 s.
	var m *Model
	a := testfiles.Allocated(func() {
		var err error
		if m, err = Load(path, Options{}); err != nil {
			t.Fatal(err)
		}
		c := m.Clips[0]
		if err := c.Validate(len(m.Skeleton.Names)); err != nil {
			t.Fatal(err)
		}
		anim.Prepare(&c)
	})
	if a > uint64(32*size) {
		t.Errorf("a %d-byte file of %d channels on one sampler of %d keys: %d bytes allocated", size, channels, keys, a)
	}
	// Sampling costs a track per bone and path: the channels name two.
	if n := len(m.Clips[0].Tracks); n != 2 {
		t.Errorf("%d channels on two joints' rotations made %d tracks, want 2", channels, n)
	}
}

// Of two channels of one animation on the same node and path (which glTF
// forbids), the last is kept, in the place of the first.
func TestRepeatedChannelLastKept(t *testing.T) {
	d := manyChannels(t, 1, 4)
	a := d["animations"].([]any)[0].(map[string]any)
	s0 := a["samplers"].([]any)[0].(map[string]any)
	rots := make([]byte, 0, 64)
	for k := range 4 {
		for _, v := range []float32{float32(k) / 10, 0, 0, 1} {
			rots = binary.LittleEndian.AppendUint32(rots, mathFloat32bits(v))
		}
	}
	other := addAccessor(d, rots, 5126, "VEC4", 4, false)
	a["samplers"] = append(a["samplers"].([]any), map[string]any{"input": s0["input"], "output": other})
	a["channels"] = []any{
		map[string]any{"sampler": 0, "target": map[string]any{"node": 1, "path": "rotation"}},
		map[string]any{"sampler": 0, "target": map[string]any{"node": 2, "path": "rotation"}},
		map[string]any{"sampler": 1, "target": map[string]any{"node": 1, "path": "rotation"}},
	}
	m, err := Load(writeModel(t, d), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Clips[0].Tracks
	if len(tr) != 2 || tr[0].Values[4] != 0.1 || tr[1].Values[4] != 0 {
		t.Fatalf("tracks %+v; want 2, the first from sampler 1", tr)
	}
}
