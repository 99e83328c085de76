package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	qgltf "github.com/qmuntal/gltf"
)

// A .gltf file with embedded buffers and images is mostly base64 text (CesiumMan:
// 618 of its 688 KB). encoding/json would walk those strings three times (the
// validity check, the decode, the copy into a Go string) at a few nanoseconds a
// byte, and a buffer's base64 is decoded afterwards anyway. So before decoding
// the JSON, the payloads of large data URIs given as a "uri" are lifted out of
// the text: each is replaced by a short placeholder string, and its bytes are
// decoded from the original text only when the buffer or image is read.
//
// Nothing changes what the file means: a payload is lifted only when the JSON
// decoder would give exactly its bytes (printable ASCII, no quote, no escape);
// the placeholder holds a NUL, which a file can only write as \u0000, and a file
// that does is decoded whole; and the document is kept only when every
// placeholder came back as the uri of one buffer or image. Anything else (a
// lifted string that was a name, a key, a value overwritten by a duplicate key,
// a syntax error) decodes the original text as before, so every error is the
// one the full decode gives.

// liftMin is the shortest payload worth lifting out of the JSON text.
const liftMin = 4 << 10

// liftDataURIs returns the JSON text with the large data URIs' payloads
// replaced by placeholders, and each placeholder's payload; nil when there is
// nothing to lift. A payload is read once here (plainLen finds its end); the
// \u0000 check reads only the text that is kept (a payload holds no backslash).
func liftDataURIs(text []byte) ([]byte, map[string][]byte) {
	var out []byte
	var lifted map[string][]byte
	nul := []byte(`\u0000`)
	copied := 0 // text[copied:] is not in out yet
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(`"data:`))
		if k < 0 {
			break
		}
		start := i + k + 1 // the uri's first byte
		end := start + plainLen(text[start:])
		i = start
		if end == len(text) || text[end] != '"' {
			continue // not a plain string: left to the JSON decoder
		}
		i = end + 1
		uri := text[start:end]
		comma := bytes.IndexByte(uri, ',')
		if comma < 0 || len(uri)-comma-1 < liftMin || !isURIValue(text[:start-1]) {
			continue
		}
		kept := text[copied : start+comma+1]
		if bytes.Contains(kept, nul) {
			return nil, nil
		}
		if lifted == nil {
			lifted = make(map[string][]byte)
			out = make([]byte, 0, 1024)
		}
		id := strconv.Itoa(len(lifted))
		lifted[string(uri[:comma+1])+"\x00"+id] = uri[comma+1:]
		out = append(out, kept...)
		out = append(out, nul...)
		out = append(out, id...)
		copied = end
	}
	if lifted == nil || bytes.Contains(text[copied:], nul) {
		return nil, nil
	}
	return append(out, text[copied:]...), lifted
}

// isURIValue reports whether before ends with `"uri":` (and white space).
func isURIValue(before []byte) bool {
	before = bytes.TrimRight(before, " \t\r\n")
	if !bytes.HasSuffix(before, []byte(":")) {
		return false
	}
	return bytes.HasSuffix(bytes.TrimRight(before[:len(before)-1], " \t\r\n"), []byte(`"uri"`))
}

// plainLen returns how many leading bytes of s are printable ASCII other than
// the quote and the backslash: a JSON string of exactly these bytes. Eight
// bytes at a time: a word passes when no byte has its top bit set, none is
// below 0x20, and none equals '"' or '\\'.
func plainLen(s []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(w uint64) bool { return (w-ones)&^w&highs != 0 }
	n := 0
	for ; n+8 <= len(s); n += 8 {
		w := binary.LittleEndian.Uint64(s[n:])
		if w&highs != 0 || (w-0x20*ones)&highs != 0 || hasZero(w^'"'*ones) || hasZero(w^'\\'*ones) {
			break
		}
	}
	for ; n < len(s); n++ {
		if c := s[n]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			break
		}
	}
	return n
}

// unmarshal decodes the document's JSON with its large data URIs lifted out
// (see above), or whole when that cannot stand for the original. It decodes a
// copy of the text, which it returns: the file is mapped, and encoding/json
// panics on text that changes between its passes (a file written meanwhile).
func (d *document) unmarshal(text []byte) (*qgltf.Document, []byte, error) {
	if short, lifted := liftDataURIs(text); lifted != nil {
		if doc, err := unmarshalDocument(short); err == nil && allPlaced(doc, lifted) {
			d.lifted = lifted
			return doc, short, nil
		}
	}
	text = bytes.Clone(text)
	doc, err := unmarshalDocument(text)
	return doc, text, err
}

// allPlaced reports whether every lifted placeholder is the uri of a buffer or an
// image of doc (each appears once in the text, so at most once in doc).
func allPlaced(doc *qgltf.Document, lifted map[string][]byte) bool {
	n := 0
	for _, b := range doc.Buffers {
		if b != nil && lifted[b.URI] != nil {
			n++
		}
	}
	for _, im := range doc.Images {
		if im != nil && lifted[im.URI] != nil {
			n++
		}
	}
	return n == len(lifted)
}

// dataURI decodes a data URI of a buffer or image, lifted or not.
func (d *document) dataURI(uri string) ([]byte, error) {
	header, payload, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ",")
	if p, isLifted := d.lifted[uri]; isLifted {
		return decodeDataPayload(header, p)
	}
	if !ok {
		return nil, fmt.Errorf("no comma after the media type")
	}
	return decodeDataPayload(header, []byte(payload))
}

// decodeDataPayload decodes a base64 data URI (RFC 2397) of any media type from
// its header (the media type and parameters) and its payload.
func decodeDataPayload(header string, payload []byte) ([]byte, error) {
	if !strings.HasSuffix(header, ";base64") {
		return nil, fmt.Errorf("only base64 data URIs are supported, not %q", header)
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(payload))) // at least Std's
	n, err := base64.StdEncoding.Decode(out, payload)
	if err != nil {
		// some writers omit the padding
		n2, err2 := base64.RawStdEncoding.Decode(out, payload)
		if err2 != nil {
			return nil, err
		}
		n = n2
	}
	return out[:n], nil
}
