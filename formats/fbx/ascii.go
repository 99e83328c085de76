package fbx

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/formats"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// token kinds of the ASCII syntax (docs/formats/fbx.md §3).
const (
	tEOF = iota
	tName
	tString
	tNumber
	tWord
	tComma
	tOpen
	tClose
	tStar
	tNewline
)

type token struct {
	kind int
	text []byte
	at   int
}

type asciiReader struct {
	b    []byte
	pos  int
	file string
	peek *token
}

// parseASCII reads an ASCII FBX 7.x file (docs/formats/fbx.md §3).
func parseASCII(b []byte, file string) (*File, error) {
	r := &asciiReader{b: b, file: file}
	head := bytes.TrimLeft(b, "\ufeff \t\r\n")
	at := len(b) - len(head)
	line, _, _ := bytes.Cut(head[len(asciiMagic):], []byte("\n"))
	var maj, mnr int
	if _, err := fmt.Sscanf(string(line), "%d.%d", &maj, &mnr); err != nil {
		return nil, fail(file, formats.RuleVersion, int64(at), "ASCII FBX header %q does not give a version as 7.4.0 does", bytes.TrimSpace(head[:min(len(head), 40)]))
	}
	v := maj*1000 + mnr*100
	if err := checkVersion(file, v, int64(at)); err != nil {
		return nil, err
	}
	nodes, err := r.nodes(0)
	if err != nil {
		return nil, err
	}
	if t := r.next(); t.kind != tEOF {
		return nil, r.syntax(t, "a '}' closes no node")
	}
	f := &File{Name: file, Version: v, Nodes: nodes}
	// The header extension names the exact version (7400, 7500, ...).
	if fv := f.Top("FBXHeaderExtension").Child("FBXVersion"); fv != nil && len(fv.Props) > 0 {
		if x, ok := fv.Props[0].Integer(); ok {
			if err := checkVersion(file, int(x), fv.Offset); err != nil {
				return nil, err
			}
			f.Version = int(x)
		}
	}
	return f, nil
}

func (r *asciiReader) syntax(t token, detail string, args ...any) error {
	what := fmt.Sprintf(detail, args...)
	if t.kind == tEOF {
		return fail(r.file, formats.RuleTruncated, int64(t.at), "the file ends where %s", what)
	}
	return fail(r.file, RuleSyntax, int64(t.at), "%s (at %q)", what, t.text)
}

func isIdent(c byte) bool {
	return c == '_' || c == '|' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// scan returns the next token, comments and blanks skipped.
func (r *asciiReader) scan() token {
	b := r.b
	for r.pos < len(b) {
		c := b[r.pos]
		switch {
		case c == ';':
			for r.pos < len(b) && b[r.pos] != '\n' {
				r.pos++
			}
		case c == '\n':
			r.pos++
			return token{kind: tNewline, at: r.pos - 1, text: b[r.pos-1 : r.pos]}
		case c == ' ' || c == '\t' || c == '\r':
			r.pos++
		default:
			start := r.pos
			one := func(k int) token { r.pos++; return token{kind: k, at: start, text: b[start:r.pos]} }
			switch c {
			case ',':
				return one(tComma)
			case '{':
				return one(tOpen)
			case '}':
				return one(tClose)
			case '*':
				return one(tStar)
			case '"':
				end := bytes.IndexByte(b[start+1:], '"')
				if end < 0 {
					r.pos = len(b)
					return token{kind: tEOF, at: start}
				}
				r.pos = start + 1 + end + 1
				return token{kind: tString, at: start, text: b[start+1 : start+1+end]}
			}
			if c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
				for r.pos < len(b) && (isIdent(b[r.pos]) || b[r.pos] == '.' || b[r.pos] == '-' || b[r.pos] == '+') {
					r.pos++
				}
				return token{kind: tNumber, at: start, text: b[start:r.pos]}
			}
			if isIdent(c) {
				for r.pos < len(b) && isIdent(b[r.pos]) {
					r.pos++
				}
				if r.pos < len(b) && b[r.pos] == ':' {
					r.pos++
					return token{kind: tName, at: start, text: b[start : r.pos-1]}
				}
				return token{kind: tWord, at: start, text: b[start:r.pos]}
			}
			return one(-1)
		}
	}
	return token{kind: tEOF, at: len(b)}
}

func (r *asciiReader) next() token {
	if r.peek != nil {
		t := *r.peek
		r.peek = nil
		return t
	}
	return r.scan()
}

func (r *asciiReader) look() token {
	if r.peek == nil {
		t := r.scan()
		r.peek = &t
	}
	return *r.peek
}

// skipLines skips newline tokens and returns the next other token, unread.
func (r *asciiReader) skipLines() token {
	for r.look().kind == tNewline {
		r.next()
	}
	return r.look()
}

// nodes reads nodes up to a '}' (left unread) or the end of the file.
func (r *asciiReader) nodes(depth int) ([]*Node, error) {
	var out []*Node
	for {
		t := r.skipLines()
		if t.kind == tEOF || t.kind == tClose {
			return out, nil
		}
		if t.kind != tName {
			return nil, r.syntax(t, "expected a node's name and ':'")
		}
		if depth > MaxDepth {
			return nil, fail(r.file, RuleDepth, int64(t.at), "nodes nest deeper than %d levels", MaxDepth)
		}
		r.next()
		n := &Node{Name: string(t.text), Offset: int64(t.at)}
		if err := r.values(n); err != nil {
			return nil, err
		}
		if r.look().kind == tOpen {
			r.next()
			kids, err := r.nodes(depth + 1)
			if err != nil {
				return nil, err
			}
			if c := r.next(); c.kind != tClose {
				return nil, r.syntax(c, "node %q's '{' has no '}'", n.Name)
			}
			n.Children = kids
		}
		out = append(out, n)
	}
}

// values reads a node's properties: values separated by commas (a line may
// break after a comma), or one array "*N { a: ... }".
func (r *asciiReader) values(n *Node) error {
	if r.look().kind == tComma {
		// "Content: , "...", ..." (an embedded file's base64 chunks): the
		// empty first value is no property.
		r.next()
		r.skipLines()
	}
	for {
		t := r.look()
		switch t.kind {
		case tString:
			r.next() // the FBX SDK writes '"' in a string as &quot;
			n.Props = append(n.Props, Property{Type: 'S', String: strings.ReplaceAll(string(t.text), "&quot;", `"`)})
		case tWord:
			r.next()
			n.Props = append(n.Props, Property{Type: 'S', String: string(t.text)})
		case tNumber:
			r.next()
			p, err := r.number(t)
			if err != nil {
				return err
			}
			n.Props = append(n.Props, p)
		case tStar:
			r.next()
			p, err := r.array(t, n.Name)
			if err != nil {
				return err
			}
			n.Props = append(n.Props, p)
		default:
			if len(n.Props) == 0 {
				return nil // a node with no values: "Name: {" or "Name:" alone
			}
			return r.syntax(t, "node %q: expected a value after ','", n.Name)
		}
		if r.look().kind != tComma {
			return nil
		}
		r.next()
		r.skipLines()
	}
}

func (r *asciiReader) number(t token) (Property, error) {
	s := string(t.text)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Property{Type: 'L', Int: i}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Property{}, r.syntax(t, "%q is not a number", s)
	}
	return Property{Type: 'D', Float: f}, nil
}

// array reads "*N { a: v, v, ... }" after the '*'. N is checked against the
// bytes left before anything is allocated: each value takes at least two.
func (r *asciiReader) array(star token, node string) (Property, error) {
	t := r.next()
	n, err := strconv.ParseUint(string(t.text), 10, 64)
	if t.kind != tNumber || err != nil {
		return Property{}, r.syntax(t, "node %q: '*' is followed by %q, not an element count", node, t.text)
	}
	if left := uint64(len(r.b) - r.pos); n > left/2+1 {
		return Property{}, fail(r.file, RuleArray, int64(star.at), "node %q: an array of %d elements cannot fit in the %d bytes left", node, n, left)
	}
	if o := r.skipLines(); o.kind != tOpen {
		return Property{}, r.syntax(o, "node %q: an array's count is not followed by '{'", node)
	}
	r.next()
	a := r.skipLines()
	if a.kind != tName || string(a.text) != "a" {
		return Property{}, r.syntax(a, "node %q: an array's values do not start with 'a:'", node)
	}
	r.next()
	ints := make([]int64, 0, n)
	var floats []float64
	for {
		t := r.skipLines()
		if t.kind == tClose {
			r.next()
			break
		}
		if t.kind != tNumber {
			return Property{}, r.syntax(t, "node %q: an array holds a non-number", node)
		}
		r.next()
		if uint64(len(ints)+len(floats)) >= n {
			return Property{}, fail(r.file, RuleArray, int64(t.at), "node %q: the array holds more than the %d elements its count says", node, n)
		}
		p, err := r.number(t)
		if err != nil {
			return Property{}, err
		}
		switch {
		case floats != nil:
			floats = append(floats, p.Float)
			if p.Type == 'L' {
				floats[len(floats)-1] = float64(p.Int)
			}
		case p.Type == 'L':
			ints = append(ints, p.Int)
		default: // the first float: every value is a float
			floats = make([]float64, len(ints), n)
			for i, v := range ints {
				floats[i] = float64(v)
			}
			floats = append(floats, p.Float)
			ints = nil
		}
		if c := r.skipLines(); c.kind == tComma {
			r.next()
		}
	}
	if got := uint64(len(ints) + len(floats)); got != n {
		return Property{}, fail(r.file, RuleArray, int64(star.at), "node %q: the array holds %d elements, but its count says %d", node, got, n)
	}
	if floats != nil {
		return Property{Type: 'd', Floats: floats}, nil
	}
	return Property{Type: 'l', Ints: ints}, nil
}
