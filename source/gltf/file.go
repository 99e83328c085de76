package gltf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"

	qgltf "github.com/qmuntal/gltf"

	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/internal/words"
)

// document is a decoded glTF file: its JSON, its buffers' bytes and the node
// hierarchy, all checked enough that later stages can index them without panicking.
type document struct {
	path    string
	dir     string // where external files are read from
	doc     *qgltf.Document
	buffers [][]byte // buffers[i] has exactly doc.Buffers[i].ByteLength bytes
	// root is the folder external files must stay inside (the model's folder
	// unless Options.FilesRoot says otherwise).
	root string
	// budget is how many bytes the file and its buffers hold: no accessor without
	// data may claim more than this (zero-filled accessors have no backing bytes).
	budget  int64
	parents []int // parent node of each node, -1 for roots
	// memory bounds what the file can make Load allocate (see memory.go).
	memory memory
	// textures caches what each (image, sampler) resolved to, and images each
	// image's bytes (see texture).
	textures map[textureKey]textureResult
	images   map[int]imageResult
	// decoded caches the decoded bytes of meshopt-compressed buffer views, and
	// accessors the decoded elements of accessors (shared, never modified).
	decoded   map[int][]byte
	accessors map[accessorKey]any
	// lifted holds the payloads of the data URIs lifted out of the JSON text
	// before it was decoded, by the placeholder uri they left (see datauri.go).
	lifted map[string][]byte
	// mapped is the file's mapping (see withDocument): bytes no result may hold.
	mapped []byte
}

func (d *document) fail(rule Rule, format string, args ...any) error {
	return &Error{File: d.path, Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

func (d *document) wrap(rule Rule, err error, format string, args ...any) error {
	return &Error{File: d.path, Rule: rule, Detail: fmt.Sprintf(format, args...), Err: err}
}

// withDocument reads a .gltf or .glb file and the buffers it refers to (external
// files must lie inside root, "" = the model's own folder) and returns what use
// makes of the document. The file is mapped, not copied (regfile.Map): what use
// returns must not hold its bytes, and a fault reading them, the file cut short
// while it was read, is an error naming the file instead of a crash.
func withDocument[T any](path, root string, use func(*document) (T, error)) (t T, err error) {
	data, release, err := regfile.Map(path) // a pipe or device is refused, not waited on
	if err != nil {
		return t, &Error{File: path, Rule: RuleFile, Detail: "cannot read the file", Err: err}
	}
	defer release()
	defer func() {
		if r := recover(); r != nil {
			if !regfile.Faulted(r, data) {
				panic(r)
			}
			var zero T
			t, err = zero, &Error{File: path, Rule: RuleFile, Detail: "the file was cut short while it was read"}
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	d, err := decodeDocument(path, data, filepath.Dir(path), root)
	if err != nil {
		return t, err
	}
	d.mapped = data
	return use(d)
}

const glbMagic = 0x46546c67 // "glTF"

const (
	glbChunkJSON = 0x4e4f534a
	glbChunkBIN  = 0x004e4942
)

// decodeDocument decodes the bytes of a glTF file named path; external files are
// read relative to dir and must stay inside root ("" = dir).
func decodeDocument(path string, data []byte, dir, root string) (*document, error) {
	if root == "" {
		root = dir
	}
	d := &document{path: path, dir: dir, root: root, budget: int64(len(data))}
	jsonBytes, bin, isGLB, err := d.splitContainer(data)
	if err != nil {
		return nil, err
	}
	// The JSON is parsed once; only a document that fails to decode is looked at
	// again, for a more precise reason than the decoder's.
	doc, jsonBytes, err := d.unmarshal(jsonBytes)
	if err != nil {
		if err := d.checkVersion(jsonBytes); err != nil {
			return nil, err
		}
		if err := d.preflight(jsonBytes); err != nil {
			return nil, err
		}
		return nil, d.wrap(RuleSyntax, err, "the JSON is not a valid glTF document")
	}
	if err := d.checkVersionOf(doc.Asset.Version); err != nil {
		return nil, err
	}
	d.doc = doc
	if err := d.checkNulls(); err != nil {
		return nil, err
	}
	if err := d.loadBuffers(bin, isGLB, dir); err != nil {
		return nil, err
	}
	if err := d.buildHierarchy(); err != nil {
		return nil, err
	}
	return d, nil
}

// unmarshalDocument is json.Unmarshal of a glTF document, done in fewer passes
// over the text. qgltf.Document's UnmarshalJSON decodes the text twice (once
// for the required asset, once into an alias of the type), and json.Unmarshal
// scans it twice more before calling it; here it is decoded once, into the
// alias. That gives the same document whenever the original succeeds: the
// alias pass is the original's second, and the first fails only for a
// missing or null asset, which the alias pass fails on (a null asset has no
// version) or leaves without a version (a present one has one, or fails). In
// every other case, the original runs and says what it says.
func unmarshalDocument(jsonBytes []byte) (*qgltf.Document, error) {
	type alias qgltf.Document
	var a alias
	if err := json.Unmarshal(jsonBytes, &a); err == nil && a.Asset.Version != "" {
		doc := qgltf.Document(a)
		return &doc, nil
	}
	doc := new(qgltf.Document)
	return doc, json.Unmarshal(jsonBytes, doc)
}

// splitContainer returns the JSON text and, for a GLB file, its BIN chunk.
func (d *document) splitContainer(data []byte) (jsonBytes, bin []byte, isGLB bool, err error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != glbMagic {
		return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), nil, false, nil
	}
	if len(data) < 20 {
		return nil, nil, true, d.fail(RuleSyntax, "GLB file is %d bytes, shorter than its 20-byte header", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		if v == 1 {
			return nil, nil, true, d.fail(RuleVersion, "glTF 1.0 is not supported (GLB version 1, KHR_binary_glTF); convert it to 2.0 with %s", convertHint)
		}
		return nil, nil, true, d.fail(RuleVersion, "GLB version is %d, only 2 is supported", v)
	}
	total := binary.LittleEndian.Uint32(data[8:])
	if uint64(total) > uint64(len(data)) {
		return nil, nil, true, d.fail(RuleSyntax, "GLB header says %d bytes but the file has %d", total, len(data))
	}
	data = data[:total]
	off := uint64(12)
	first := true
	for off+8 <= uint64(len(data)) {
		n := uint64(binary.LittleEndian.Uint32(data[off:]))
		typ := binary.LittleEndian.Uint32(data[off+4:])
		start := off + 8
		if n > uint64(len(data))-start {
			return nil, nil, true, d.fail(RuleSyntax, "GLB chunk at offset %d claims %d bytes, past the end of the file", off, n)
		}
		chunk := data[start : start+n]
		switch {
		case first && typ != glbChunkJSON:
			return nil, nil, true, d.fail(RuleSyntax, "the first GLB chunk is not JSON (type 0x%08x)", typ)
		case first:
			jsonBytes = chunk
		case typ == glbChunkBIN && bin == nil:
			bin = chunk
		}
		first = false
		off = (start + n + 3) &^ 3
	}
	if first {
		return nil, nil, true, d.fail(RuleSyntax, "GLB file has no JSON chunk")
	}
	return jsonBytes, bin, true, nil
}

// preflight reports, with a precise rule, problems that the JSON decoder would
// otherwise only describe as a syntax error.
func (d *document) preflight(jsonBytes []byte) error {
	var pre struct {
		Skins []*struct {
			Joints *[]int `json:"joints"`
		} `json:"skins"`
	}
	if json.Unmarshal(jsonBytes, &pre) != nil {
		return nil // the full decode reports it
	}
	for i, s := range pre.Skins {
		if s != nil && (s.Joints == nil || len(*s.Joints) == 0) {
			return d.fail(RuleSkin, "skin %d has no joints", i)
		}
	}
	return nil
}

// checkNulls refuses null entries in the document's arrays of objects, which
// encoding/json leaves as nil pointers.
func (d *document) checkNulls() error {
	doc := d.doc
	check := func(name string, n int, isNil func(int) bool) error {
		for i := 0; i < n; i++ {
			if isNil(i) {
				return d.fail(RuleSyntax, "%s[%d] is null", name, i)
			}
		}
		return nil
	}
	for _, c := range []struct {
		name  string
		n     int
		isNil func(int) bool
	}{
		{"accessors", len(doc.Accessors), func(i int) bool { return doc.Accessors[i] == nil }},
		{"animations", len(doc.Animations), func(i int) bool { return doc.Animations[i] == nil }},
		{"buffers", len(doc.Buffers), func(i int) bool { return doc.Buffers[i] == nil }},
		{"bufferViews", len(doc.BufferViews), func(i int) bool { return doc.BufferViews[i] == nil }},
		{"meshes", len(doc.Meshes), func(i int) bool { return doc.Meshes[i] == nil }},
		{"nodes", len(doc.Nodes), func(i int) bool { return doc.Nodes[i] == nil }},
		{"skins", len(doc.Skins), func(i int) bool { return doc.Skins[i] == nil }},
	} {
		if err := check(c.name, c.n, c.isNil); err != nil {
			return err
		}
	}
	for mi, m := range doc.Meshes {
		if err := check(fmt.Sprintf("meshes[%d].primitives", mi), len(m.Primitives), func(i int) bool { return m.Primitives[i] == nil }); err != nil {
			return err
		}
	}
	for ai, a := range doc.Animations {
		if err := check(fmt.Sprintf("animations[%d].channels", ai), len(a.Channels), func(i int) bool { return a.Channels[i] == nil }); err != nil {
			return err
		}
		if err := check(fmt.Sprintf("animations[%d].samplers", ai), len(a.Samplers), func(i int) bool { return a.Samplers[i] == nil }); err != nil {
			return err
		}
	}
	return nil
}

// loadBuffers fills d.buffers from the GLB BIN chunk, data URIs and external
// files; a meshopt fallback buffer without a uri stays nil.
func (d *document) loadBuffers(bin []byte, isGLB bool, dir string) error {
	d.buffers = make([][]byte, len(d.doc.Buffers))
	for i, b := range d.doc.Buffers {
		if b.ByteLength < 1 {
			return d.fail(RuleBuffer, "buffer %d has byteLength %d (at least 1 is required)", i, b.ByteLength)
		}
		var data []byte
		switch {
		case b.URI == "" && isGLB && i == 0:
			if bin == nil {
				return d.fail(RuleBuffer, "buffer 0 has no uri and the GLB file has no BIN chunk")
			}
			data = bin
		case b.URI == "" && d.isFallback(i):
			continue // meshopt fallback: its buffer views are decoded from another buffer
		case b.URI == "":
			return d.fail(RuleBuffer, "buffer %d has no uri", i)
		case strings.HasPrefix(b.URI, "data:"):
			var err error
			if data, err = d.dataURI(b.URI); err != nil {
				return d.wrap(RuleBuffer, err, "buffer %d has a bad data URI", i)
			}
		default:
			var err error
			if data, err = d.readExternal(b.URI, b.ByteLength); err != nil {
				return d.wrap(RuleBuffer, err, "buffer %d (%q) cannot be read", i, b.URI)
			}
		}
		if len(data) < b.ByteLength {
			return d.fail(RuleBuffer, "buffer %d holds %d bytes but its byteLength is %d", i, len(data), b.ByteLength)
		}
		d.buffers[i] = data[:b.ByteLength:b.ByteLength]
		d.budget += int64(b.ByteLength)
	}
	return nil
}

// readExternal reads the first n bytes of the file a relative URI names (n < 0:
// the whole file, at most −n bytes). The file must lie inside d.root, symbolic
// links included: it is opened through os.Root, so neither "../" nor a link can
// leave the folder, and it must be a regular file: a named pipe, a device or a
// socket is refused before it is opened (docs/formats/gltf.md §6).
func (d *document) readExternal(uri string, n int) ([]byte, error) {
	if u, err := url.Parse(uri); err == nil && u.Scheme != "" {
		return nil, fmt.Errorf("URI scheme %q is not supported", u.Scheme)
	}
	name, err := url.PathUnescape(uri)
	if err != nil {
		return nil, err
	}
	// A URI is a relative reference: "/dev/zero" would otherwise be read as
	// dev/zero in the model's folder and fail as a file not found.
	if strings.HasPrefix(name, "/") || filepath.IsAbs(filepath.FromSlash(name)) {
		return nil, fmt.Errorf("%q is an absolute path; external files are named relative to the model and read from %s only (a pipeline that keeps them elsewhere can name that folder with Options.FilesRoot)", uri, d.root)
	}
	rel, err := filepath.Rel(d.root, filepath.Join(d.dir, filepath.FromSlash(name)))
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%q leaves %s, the folder external files are read from (a pipeline that keeps them elsewhere can name that folder with Options.FilesRoot)", uri, d.root)
	}
	f, st, err := regfile.OpenInRoot(d.root, rel)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, fmt.Errorf("%q is a symbolic link out of %s, the folder external files are read from (Options.FilesRoot names another): %w", uri, d.root, err)
		}
		return nil, err
	}
	defer f.Close()
	switch {
	case n < 0 && st.Size() > int64(-n):
		return nil, fmt.Errorf("the file is %s, more than the %s allowed", words.Bytes(st.Size()), words.Bytes(int64(-n)))
	case n < 0:
		n = int(st.Size())
	case st.Size() < int64(n):
		return nil, fmt.Errorf("the file has %d bytes, byteLength says %d", st.Size(), n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// buildHierarchy computes every node's parent and refuses anything but a forest.
func (d *document) buildHierarchy() error {
	nodes := d.doc.Nodes
	d.parents = make([]int, len(nodes))
	for i := range d.parents {
		d.parents[i] = -1
	}
	for i, n := range nodes {
		for _, c := range n.Children {
			switch {
			case c < 0 || c >= len(nodes):
				return d.fail(RuleNodeGraph, "node %d has child %d, but there are %d nodes", i, c, len(nodes))
			case c == i:
				return d.fail(RuleNodeGraph, "node %d is its own child (a cycle)", i)
			case d.parents[c] != -1:
				return d.fail(RuleNodeGraph, "node %d has two parents, %d and %d", c, d.parents[c], i)
			}
			d.parents[c] = i
		}
		if n.Mesh != nil && (*n.Mesh < 0 || *n.Mesh >= len(d.doc.Meshes)) {
			return d.fail(RuleMesh, "node %d uses mesh %d, but there are %d meshes", i, *n.Mesh, len(d.doc.Meshes))
		}
		if n.Skin != nil && (*n.Skin < 0 || *n.Skin >= len(d.doc.Skins)) {
			return d.fail(RuleSkinIndex, "node %d uses skin %d, but there are %d skins", i, *n.Skin, len(d.doc.Skins))
		}
	}
	// Every node has at most one parent now; a cycle is a chain of parents that
	// comes back to a node already on it.
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(nodes))
	for i := range nodes {
		x := i
		for x >= 0 && state[x] == unseen {
			state[x] = onPath
			x = d.parents[x]
		}
		if x >= 0 && state[x] == onPath {
			return d.fail(RuleNodeGraph, "node %d is its own ancestor (a cycle)", x)
		}
		for y := i; y >= 0 && state[y] == onPath; y = d.parents[y] {
			state[y] = done
		}
	}
	return nil
}

// nodeName is a node's name, or "node<N>" when it has none.
func (d *document) nodeName(i int) string {
	if n := d.doc.Nodes[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("node%d", i)
}
