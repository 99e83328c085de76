package gltf

import (
	"errors"
	"fmt"

	"github.com/bonebake/bonebake/source/gltf/meshopt"
)

// meshoptView is a buffer view's EXT_meshopt_compression (or KHR_) object: where
// the encoded bytes are and how to decode them into the view.
type meshoptView struct {
	Buffer     int            `json:"buffer"`
	ByteOffset int            `json:"byteOffset"`
	ByteLength int            `json:"byteLength"`
	ByteStride int            `json:"byteStride"`
	Count      int            `json:"count"`
	Mode       meshopt.Mode   `json:"mode"`
	Filter     meshopt.Filter `json:"filter"`
}

// meshoptExtension returns which meshopt extension an extensions object uses and
// the object, if any.
func (d *document) meshoptExtension(ext map[string]any, what string) (string, *meshoptView, error) {
	for _, name := range []string{extMeshoptKHR, extMeshoptEXT} {
		var v meshoptView
		ok, err := extension(ext, name, &v)
		if err != nil {
			return name, nil, d.wrap(RuleExtension, err, "%s: %s is not valid JSON for the extension", what, name)
		}
		if ok {
			return name, &v, nil
		}
	}
	return "", nil, nil
}

// isFallback reports whether buffer i is a meshopt fallback buffer: one that only
// gives compressed buffer views somewhere to live and may have no data at all.
func (d *document) isFallback(i int) bool {
	for _, name := range []string{extMeshoptKHR, extMeshoptEXT} {
		var fb struct {
			Fallback bool `json:"fallback"`
		}
		if ok, err := extension(d.doc.Buffers[i].Extensions, name, &fb); ok && err == nil && fb.Fallback {
			return true
		}
	}
	return false
}

// decodeMeshopt returns the decoded bytes of buffer view i, which has a meshopt
// extension: count·byteStride bytes (at most the view's byteLength; accessors are
// checked against what was decoded), cached so that accessors sharing the view
// decode it once.
func (d *document) decodeMeshopt(i int, name string, m *meshoptView) ([]byte, error) {
	if b, ok := d.decoded[i]; ok {
		return b, nil
	}
	bv := d.doc.BufferViews[i]
	where := fmt.Sprintf("buffer view %d: %s", i, name)
	if m.Buffer < 0 || m.Buffer >= len(d.buffers) {
		return nil, d.fail(RuleExtension, "%s: buffer %d does not exist (there are %d)", where, m.Buffer, len(d.buffers))
	}
	src := d.buffers[m.Buffer]
	if src == nil {
		return nil, d.fail(RuleExtension, "%s: buffer %d holds no data (it is a fallback buffer)", where, m.Buffer)
	}
	if m.ByteOffset < 0 || m.ByteLength < 1 || m.ByteOffset > len(src) || m.ByteLength > len(src)-m.ByteOffset {
		return nil, d.fail(RuleExtension, "%s: bytes [%d, +%d) are outside buffer %d (%d bytes)", where, m.ByteOffset, m.ByteLength, m.Buffer, len(src))
	}
	src = src[m.ByteOffset : m.ByteOffset+m.ByteLength]
	if m.Filter == "" {
		m.Filter = meshopt.None
	}
	where = fmt.Sprintf("%s (mode %s, filter %s, %d × %d bytes encoded in buffer %d at byte %d)", where, m.Mode, m.Filter, m.Count, m.ByteStride, m.Buffer, m.ByteOffset)
	min := meshopt.MinEncodedSize(m.Mode, m.Count, m.ByteStride)
	switch {
	case min < 0:
		return nil, d.fail(RuleExtension, "%s: mode %q cannot encode %d elements of %d bytes", where, m.Mode, m.Count, m.ByteStride)
	case m.ByteLength < min:
		return nil, d.fail(RuleExtension, "%s: %d encoded bytes cannot hold %d elements (at least %d are needed)", where, m.ByteLength, m.Count, min)
	case m.Count*m.ByteStride > bv.ByteLength:
		return nil, d.fail(RuleExtension, "%s: %d decoded bytes do not fit the buffer view's byteLength %d", where, m.Count*m.ByteStride, bv.ByteLength)
	}
	out := make([]byte, m.Count*m.ByteStride)
	if err := meshopt.Decode(out, m.Count, m.ByteStride, src, m.Mode, m.Filter); err != nil {
		var me *meshopt.Error
		if errors.As(err, &me) && me.Offset >= 0 {
			return nil, d.wrap(RuleExtension, err, "%s: bad data at byte %d of buffer %d", where, m.ByteOffset+me.Offset, m.Buffer)
		}
		return nil, d.wrap(RuleExtension, err, "%s", where)
	}
	if d.decoded == nil {
		d.decoded = map[int][]byte{}
	}
	d.decoded[i] = out
	return out, nil
}
