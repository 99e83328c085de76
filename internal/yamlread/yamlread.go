// Package yamlread decodes YAML into Go values by their yaml tags, from the parsed
// document's nodes, so that every error says in a manifest author's words what was
// expected, where (line), and what was there, without depending on the YAML
// library's own message text. Bake manifests and motion bone maps are read with it.
package yamlread

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/internal/words"

	"go.yaml.in/yaml/v3"
)

// yamlError is a value that does not fit: the line, the key path and what was
// wanted.
type yamlError struct {
	line int
	path string
	msg  string
}

func (e *yamlError) Error() string {
	if e.path == "" {
		return fmt.Sprintf("line %d: %s", e.line, e.msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.line, e.path, e.msg)
}

// Decode parses b and fills v (a pointer) from it. An empty document leaves v
// as it is. Unknown keys of a struct are errors, so that typos surface.
func Decode(b []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return decodeNode(doc.Content[0], reflect.ValueOf(v).Elem(), "")
}

func fail(n *yaml.Node, path, format string, args ...any) error {
	return &yamlError{n.Line, path, fmt.Sprintf(format, args...)}
}

// what names a node's value as its author wrote it.
func what(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return strconv.Quote(n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func decodeNode(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // absent: the zero value, or nil for a pointer
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeNode(n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && n.Value != "" {
			// One name where a list goes (feet: LeftFoot): say how a list of
			// one is written.
			return fail(n, path, "want a list, got %s (a list of one is written [%s])", what(n), n.Value)
		}
		if n.Kind != yaml.SequenceNode {
			return fail(n, path, "want a list, got %s", what(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			if err := decodeNode(e, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Array:
		if n.Kind != yaml.SequenceNode || len(n.Content) != v.Len() {
			return fail(n, path, "want a list of %d numbers, got %s", v.Len(), what(n))
		}
		for i, e := range n.Content {
			if err := decodeNode(e, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fail(n, path, "want a map of names to values, got %s", what(n))
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			val := reflect.New(v.Type().Elem()).Elem()
			if err := decodeNode(n.Content[i+1], val, join(path, k.Value)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value), val)
		}
		v.Set(m)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail(n, path, "want %s, got %s", kindWords(v.Kind()), what(n))
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil || n.Tag != "!!bool" {
			return fail(n, path, "want true or false, got %s", what(n))
		}
		v.SetBool(b)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || (n.Tag != "!!float" && n.Tag != "!!int") {
			return fail(n, path, "want a number, got %s", what(n))
		}
		if v.Kind() == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
			return fail(n, path, "%s is outside the range of a float32 (about ±3.4e38)", n.Value)
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(n.Value, 0, v.Type().Bits())
		if err != nil || n.Tag != "!!int" {
			return fail(n, path, "want a whole number, got %s", what(n))
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(n.Value, 0, v.Type().Bits())
		if err != nil || n.Tag != "!!int" {
			return fail(n, path, "want a whole number of at least 0 (at most %d), got %s", uint64(1)<<v.Type().Bits()-1, what(n))
		}
		v.SetUint(u)
	default:
		return fail(n, path, "cannot be read into a %s", v.Type())
	}
	return nil
}

func kindWords(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a text"
	}
	return "a number"
}

// decodeStruct fills v's exported fields by their yaml tags; a key v has no field
// for is an error naming the keys it has, so that a typo surfaces.
func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fail(n, path, "want a map of settings, got %s", what(n))
	}
	t := v.Type()
	fields := map[string]int{}
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !t.Field(i).IsExported() {
			continue
		}
		fields[name] = i
		keys = append(keys, name)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		f, ok := fields[k.Value]
		if !ok {
			slices.Sort(keys)
			guess := ""
			if near := words.Near(k.Value, keys); len(near) > 0 {
				guess = fmt.Sprintf("; did you mean %q?", strings.Join(near, `" or "`))
			}
			return fail(k, path, "unknown key %q%s (the keys here: %s)", k.Value, guess, strings.Join(keys, ", "))
		}
		if seen[k.Value] {
			return fail(k, path, "key %q is given twice", k.Value)
		}
		seen[k.Value] = true
		if err := decodeNode(n.Content[i+1], v.Field(f), join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}
