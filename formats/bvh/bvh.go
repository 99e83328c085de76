// Package bvh reads Biovision Hierarchy motion capture files (docs/formats/bvh.md):
// the HIERARCHY of joints with their offsets, channels and end sites, and the
// MOTION's frames. It says what the file holds and how a joint's channels make
// its local transform (§3); units and axes, which the format leaves open, are
// the source's to decide (source/bvh).
package bvh

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Rules a BVH file can break, besides formats.RuleTruncated (it ends before its
// hierarchy or its frames do), formats.RuleMagic (it does not start with
// HIERARCHY), formats.RuleFloat (a NaN or infinite number) and
// formats.RuleTrailingBytes (text after the last frame).
const (
	RuleSyntax      = "syntax"       // a keyword, brace or number where another was expected
	RuleNumber      = "number"       // text where a number belongs
	RuleChannels    = "channels"     // a CHANNELS line that is not a count and that many known, distinct channels
	RuleName        = "name"         // a joint with no name, a name that is not UTF-8, or one given twice
	RuleDepth       = "depth"        // joints nested deeper than MaxDepth
	RuleFrameCount  = "frame-count"  // Frames not a count from 1, or more than the file's bytes can hold
	RuleFrameTime   = "frame-time"   // Frame Time not a positive, finite number of seconds
	RuleFrameValues = "frame-values" // a frame line without exactly one value per channel
)

// MaxDepth is how deeply joints may nest. A person is about 10 deep and a long
// tail or tentacle a few dozen; the limit keeps a hostile file's chain, which
// every reader of the skeleton walks, short.
const MaxDepth = 256

// Channel is one of the six values a joint's CHANNELS line may list.
type Channel uint8

const (
	Xposition Channel = iota
	Yposition
	Zposition
	Xrotation
	Yrotation
	Zrotation
)

var channelNames = [...]string{"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"}

func (c Channel) String() string {
	if int(c) < len(channelNames) {
		return channelNames[c]
	}
	return fmt.Sprintf("Channel(%d)", c)
}

// Axis is the channel's axis: 0 for X, 1 for Y, 2 for Z.
func (c Channel) Axis() int { return int(c) % 3 }

// Rotation reports whether the channel is an angle (in degrees) rather than a
// position.
func (c Channel) Rotation() bool { return c >= Xrotation }

// Joint is a ROOT or JOINT of the hierarchy. End sites are not joints: they
// are the ends of the bones of the joint they close (EndSites).
type Joint struct {
	Name   string
	Parent int // index in File.Joints, -1 for a ROOT
	// Offset is where the joint lies in its parent's space at rest (the root's:
	// in the file's space).
	Offset [3]float64
	// Channels are the joint's channels in the order listed, which is the order
	// of its values in each frame and the order its rotations apply (§3).
	Channels []Channel
	// First is the index, within a frame's values, of the joint's first channel.
	First int
	// EndSites are the offsets of the End Site blocks the joint holds.
	EndSites [][3]float64
	// Line is the line of the joint's ROOT or JOINT keyword.
	Line int
}

// File is a parsed BVH file.
type File struct {
	// Joints are in file order, a parent before its children.
	Joints []Joint
	// Channels is how many values each frame holds: every joint's channels.
	Channels int
	// Frames is the number of frames, at least 1; FrameTime the seconds between
	// two (positive and finite).
	Frames    int
	FrameTime float64
	// Motion holds the frames' values, frame after frame, Channels each.
	Motion []float64
}

// Duration is the seconds from the first frame to the last.
func (f *File) Duration() float64 { return float64(f.Frames-1) * f.FrameTime }

// Value is channel c (an index within a frame) of frame fr.
func (f *File) Value(fr, c int) float64 { return f.Motion[fr*f.Channels+c] }

// Local returns joint j's local transform at frame fr (§3): its translation,
// the values of its position channels when it has any (an axis it does not
// list is 0), else its offset; and its rotation as a unit quaternion (x, y,
// z, w), the product of its rotation channels in the order listed,
// R = R_first · R_second · R_third in the column-vector convention.
func (f *File) Local(j, fr int) (t [3]float64, q [4]float64) {
	jt := &f.Joints[j]
	q = [4]float64{0, 0, 0, 1}
	t = jt.Offset
	moved := false
	for k, c := range jt.Channels {
		v := f.Value(fr, jt.First+k)
		if !c.Rotation() {
			if !moved {
				t, moved = [3]float64{}, true
			}
			t[c.Axis()] = v
			continue
		}
		half := v * math.Pi / 360
		var r [4]float64
		r[c.Axis()], r[3] = math.Sin(half), math.Cos(half)
		q = mulQuat(q, r)
	}
	return t, q
}

func mulQuat(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// Open reads and parses the BVH file at path (a regular file only).
func Open(path string, opts ...formats.Option) (*File, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, append([]formats.Option{formats.Name(path)}, opts...)...)
}

// Parse parses a BVH file held in b. Errors are *formats.FormatError naming
// the rule, the line and the byte offset. Memory is in proportion to len(b):
// a Frames count the remaining bytes cannot hold is refused before anything
// is allocated for it.
func Parse(b []byte, opts ...formats.Option) (*File, error) {
	o := formats.Apply(opts)
	p := &parser{b: b, name: o.Name, line: 1}
	if bytes.HasPrefix(b, []byte("\ufeff")) {
		p.pos = 3
	}
	return p.file()
}

type parser struct {
	b    []byte
	pos  int
	line int // the line pos is on
	name string
	// lineStart and lineNo are where the last line next returned starts.
	lineStart, lineNo int
}

func (p *parser) fail(rule string, off, line int, format string, args ...any) error {
	return &formats.FormatError{File: p.name, Rule: rule, Offset: int64(off), Line: line, Index: -1, Detail: fmt.Sprintf(format, args...)}
}

// next returns the next line that holds anything but spaces, trimmed, with its
// start's offset and line number; ok is false at the end of the file.
func (p *parser) next() (s string, ok bool) {
	for p.pos < len(p.b) {
		start, line := p.pos, p.line
		end := bytes.IndexByte(p.b[start:], '\n')
		if end < 0 {
			end = len(p.b)
			p.pos = end
		} else {
			end += start
			p.pos = end + 1
			p.line++
		}
		raw := p.b[start:end]
		t := bytes.TrimSpace(raw)
		if len(t) == 0 {
			continue
		}
		p.lineStart = start + bytes.Index(raw, t)
		p.lineNo = line
		return string(t), true
	}
	p.lineStart, p.lineNo = len(p.b), p.line
	return "", false
}

func (p *parser) truncated(what string) error {
	return p.fail(formats.RuleTruncated, len(p.b), p.line, "the file ends where %s should be", what)
}

// expect reads the next line and requires it to be want (a brace).
func (p *parser) expect(want, after string) error {
	s, ok := p.next()
	if !ok {
		return p.truncated(fmt.Sprintf("%q after %s", want, after))
	}
	if s != want {
		return p.fail(RuleSyntax, p.lineStart, p.lineNo, "%q after %s, not %q", want, after, clip(s))
	}
	return nil
}

func (p *parser) number(tok, what string) (float64, error) {
	return p.numberOf(tok, func() string { return what })
}

// numberOf parses tok; what, called only for an error, names the value.
func (p *parser) numberOf(tok string, what func() string) (float64, error) {
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil && !isRange(err) {
		return 0, p.fail(RuleNumber, p.lineStart, p.lineNo, "%s: %q is not a number", what(), clip(tok))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.fail(formats.RuleFloat, p.lineStart, p.lineNo, "%s: %q is not finite", what(), clip(tok))
	}
	return v, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// offset reads an "OFFSET x y z" line.
func (p *parser) offset(of string) ([3]float64, error) {
	var o [3]float64
	s, ok := p.next()
	if !ok {
		return o, p.truncated("the OFFSET of " + of)
	}
	f := strings.Fields(s)
	if f[0] != "OFFSET" || len(f) != 4 {
		return o, p.fail(RuleSyntax, p.lineStart, p.lineNo, "%s needs \"OFFSET x y z\", not %q", of, clip(s))
	}
	for k := range 3 {
		v, err := p.number(f[k+1], "the OFFSET of "+of)
		if err != nil {
			return o, err
		}
		o[k] = v
	}
	return o, nil
}

// header splits "ROOT name", "JOINT name" or "End Site", with an optional
// "{" at the end, into the keyword, the name and whether the brace was there.
func header(s string) (kw, name string, brace bool) {
	if t, ok := strings.CutSuffix(s, "{"); ok {
		s, brace = strings.TrimSpace(t), true
	}
	kw = s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		kw, name = s[:i], strings.TrimSpace(s[i+1:])
	}
	return kw, name, brace
}

func (p *parser) file() (*File, error) {
	s, ok := p.next()
	if !ok || s != "HIERARCHY" {
		if !ok {
			return nil, p.fail(formats.RuleTruncated, len(p.b), p.line, "empty: a BVH file starts with HIERARCHY")
		}
		return nil, p.fail(formats.RuleMagic, p.lineStart, p.lineNo, "a BVH file starts with HIERARCHY, not %q", clip(s))
	}
	f := &File{}
	names := map[string]int{}
	var stack []int // the joints whose braces are open
	open := func(parent int, name string, brace bool) error {
		line, at := p.lineNo, p.lineStart
		what := fmt.Sprintf("joint %q", name)
		if name == "" {
			return p.fail(RuleName, at, line, "a joint without a name")
		}
		if !utf8.ValidString(name) {
			return p.fail(RuleName, at, line, "joint name %q is not UTF-8", name)
		}
		if prev, dup := names[name]; dup {
			return p.fail(RuleName, at, line, "a second joint named %q (the first is on line %d): joints are bound by name", clip(name), f.Joints[prev].Line)
		}
		if len(stack) >= MaxDepth {
			return p.fail(RuleDepth, at, line, "%s is nested %d deep, more than %d", what, len(stack)+1, MaxDepth)
		}
		if !brace {
			if err := p.expect("{", what); err != nil {
				return err
			}
		}
		off, err := p.offset(what)
		if err != nil {
			return err
		}
		s, ok := p.next()
		if !ok {
			return p.truncated("the CHANNELS of " + what)
		}
		fl := strings.Fields(s)
		if fl[0] != "CHANNELS" || len(fl) < 2 {
			return p.fail(RuleSyntax, p.lineStart, p.lineNo, "%s needs \"CHANNELS n ...\" after its OFFSET, not %q", what, clip(s))
		}
		n, err := strconv.Atoi(fl[1])
		if err != nil || n < 0 || n > len(channelNames) {
			return p.fail(RuleChannels, p.lineStart, p.lineNo, "%s: CHANNELS %q: a count from 0 to %d", what, clip(fl[1]), len(channelNames))
		}
		if len(fl)-2 != n {
			return p.fail(RuleChannels, p.lineStart, p.lineNo, "%s: CHANNELS %d lists %d names", what, n, len(fl)-2)
		}
		j := Joint{Name: name, Parent: parent, Offset: off, First: f.Channels, Line: line}
		seen := 0
		for _, c := range fl[2:] {
			k := -1
			for i, cn := range channelNames {
				if strings.EqualFold(c, cn) {
					k = i
				}
			}
			if k < 0 {
				return p.fail(RuleChannels, p.lineStart, p.lineNo, "%s: unknown channel %q (BVH has %s)", what, clip(c), strings.Join(channelNames[:], ", "))
			}
			if seen&(1<<k) != 0 {
				return p.fail(RuleChannels, p.lineStart, p.lineNo, "%s: channel %s listed twice", what, channelNames[k])
			}
			seen |= 1 << k
			j.Channels = append(j.Channels, Channel(k))
		}
		f.Channels += n
		names[name] = len(f.Joints)
		stack = append(stack, len(f.Joints))
		f.Joints = append(f.Joints, j)
		return nil
	}
	for {
		s, ok := p.next()
		if !ok {
			return nil, p.truncated("MOTION")
		}
		if s == "MOTION" {
			if len(f.Joints) == 0 {
				return nil, p.fail(RuleSyntax, p.lineStart, p.lineNo, "MOTION before any ROOT: the file has no joints")
			}
			break
		}
		kw, name, brace := header(s)
		if kw != "ROOT" {
			return nil, p.fail(RuleSyntax, p.lineStart, p.lineNo, "ROOT or MOTION expected, not %q", clip(s))
		}
		if err := open(-1, name, brace); err != nil {
			return nil, err
		}
		for len(stack) > 0 {
			s, ok := p.next()
			top := stack[len(stack)-1]
			if !ok {
				return nil, p.truncated(fmt.Sprintf("the rest of joint %q (line %d)", f.Joints[top].Name, f.Joints[top].Line))
			}
			if s == "}" {
				stack = stack[:len(stack)-1]
				continue
			}
			kw, name, brace := header(s)
			switch {
			case kw == "JOINT":
				if err := open(top, name, brace); err != nil {
					return nil, err
				}
			case kw == "End" && name == "Site":
				what := fmt.Sprintf("the End Site of %q", f.Joints[top].Name)
				if !brace {
					if err := p.expect("{", what); err != nil {
						return nil, err
					}
				}
				off, err := p.offset(what)
				if err != nil {
					return nil, err
				}
				if err := p.expect("}", "the OFFSET of "+what); err != nil {
					return nil, err
				}
				f.Joints[top].EndSites = append(f.Joints[top].EndSites, off)
			default:
				return nil, p.fail(RuleSyntax, p.lineStart, p.lineNo, "JOINT, End Site or \"}\" expected in joint %q, not %q", f.Joints[top].Name, clip(s))
			}
		}
	}
	if f.Channels == 0 {
		return nil, p.fail(RuleChannels, p.lineStart, p.lineNo, "no joint has a channel: nothing moves")
	}
	// Frames: N
	s, ok = p.next()
	if !ok {
		return nil, p.truncated("\"Frames: N\"")
	}
	rest, ok := keyword(s, "Frames")
	if !ok {
		return nil, p.fail(RuleSyntax, p.lineStart, p.lineNo, "\"Frames: N\" expected after MOTION, not %q", clip(s))
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return nil, p.fail(RuleFrameCount, p.lineStart, p.lineNo, "Frames %q: a count from 1", clip(rest))
	}
	framesAt, framesLine := p.lineStart, p.lineNo
	s, ok = p.next()
	if !ok {
		return nil, p.truncated("\"Frame Time: seconds\"")
	}
	rest, ok = keyword(s, "Frame")
	if ok {
		rest, ok = keyword(rest, "Time")
	}
	if !ok {
		return nil, p.fail(RuleSyntax, p.lineStart, p.lineNo, "\"Frame Time: seconds\" expected after Frames, not %q", clip(s))
	}
	ft, err := strconv.ParseFloat(rest, 64)
	if err != nil || !(ft > 0) || math.IsInf(ft, 0) {
		return nil, p.fail(RuleFrameTime, p.lineStart, p.lineNo, "Frame Time %q: a positive, finite number of seconds", clip(rest))
	}
	// Every value takes a character and a separator: a frame at least
	// 2·Channels bytes (the last one's newline may be missing).
	left := len(p.b) - p.pos
	if per := 2 * f.Channels; n > (left+1)/per {
		return nil, p.fail(RuleFrameCount, framesAt, framesLine, "Frames: %d of %d values need at least %d bytes; the file has %d after its Frame Time (cut short, or a wrong count)", n, f.Channels, int64(n)*int64(per)-1, left)
	}
	f.Frames, f.FrameTime = n, ft
	f.Motion = make([]float64, 0, n*f.Channels)
	for fr := range n {
		s, ok := p.next()
		if !ok {
			return nil, p.fail(formats.RuleTruncated, len(p.b), p.line, "the file ends after %d of its %d frames", fr, n)
		}
		k := 0
		for tok := range strings.FieldsSeq(s) {
			if k == f.Channels {
				return nil, p.fail(RuleFrameValues, p.lineStart, p.lineNo, "frame %d has more than its %d values", fr, f.Channels)
			}
			v, err := p.numberOf(tok, func() string { return fmt.Sprintf("frame %d value %d (%s)", fr, k, f.channelName(k)) })
			if err != nil {
				return nil, err
			}
			f.Motion = append(f.Motion, v)
			k++
		}
		if k != f.Channels {
			return nil, p.fail(RuleFrameValues, p.lineStart, p.lineNo, "frame %d has %d values; the hierarchy has %d channels", fr, k, f.Channels)
		}
	}
	if s, ok := p.next(); ok {
		return nil, p.fail(formats.RuleTrailingBytes, p.lineStart, p.lineNo, "%q after the last of the %d frames", clip(s), n)
	}
	return f, nil
}

// channelName names value k of a frame: the joint and channel it belongs to.
func (f *File) channelName(k int) string {
	for i := len(f.Joints) - 1; i >= 0; i-- {
		if j := &f.Joints[i]; k >= j.First && k < j.First+len(j.Channels) {
			return j.Name + " " + j.Channels[k-j.First].String()
		}
	}
	return "?"
}

// keyword returns what follows "kw" and an optional ':' in s.
func keyword(s, kw string) (string, bool) {
	rest, ok := strings.CutPrefix(s, kw)
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if r, ok := strings.CutPrefix(rest, ":"); ok {
		rest = strings.TrimSpace(r)
	}
	return rest, true
}

// clip shortens what an error quotes from the file.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
