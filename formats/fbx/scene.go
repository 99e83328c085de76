package fbx

import "strings"

// Scene is the object graph of a file (docs/formats/fbx.md §5): its objects by
// id, the connections between them and the global settings.
type Scene struct {
	File    *File
	Objects []*Object         // in file order
	ByID    map[int64]*Object // every object by its id
	// Connections in file order: Child is connected to Parent (0 is the scene's
	// root).
	Connections []Connection
	// GlobalSettings are the GlobalSettings node's Properties70 entries.
	GlobalSettings Props
}

// Object is one child of the Objects node: "Model: id, "Name\x00\x01Model",
// "LimbNode" { ... }".
type Object struct {
	ID       int64
	Class    string // the node's name: Model, Geometry, Deformer, AnimationCurve, ...
	Name     string // the name without its class ("Hips", "mixamorig:Hips")
	SubClass string // the third property: LimbNode, Mesh, Skin, Cluster, ...
	Node     *Node
	Props    Props // the object's Properties70 entries
}

// Connection is one "C" entry: "OO" (object to object) or "OP" (object to one
// of the parent's properties, named by Property).
type Connection struct {
	Kind          string
	Child, Parent int64
	Property      string
	Offset        int64
}

// Props are Properties70 entries by name.
type Props map[string]*P

// P is one Properties70 entry: "P: name, type, label, flags, values...".
type P struct {
	Name, Type, Label, Flags string
	Values                   []Property
}

// Number returns the entry's i-th value as a number.
func (p *P) Number(i int) (float64, bool) {
	if p == nil || i >= len(p.Values) {
		return 0, false
	}
	return p.Values[i].Number()
}

// Vec3 returns the entry's first three values (a vector property such as
// Lcl Translation), or def when the entry is absent or not three numbers.
func (ps Props) Vec3(name string, def [3]float64) [3]float64 {
	p := ps[name]
	if p == nil || len(p.Values) < 3 {
		return def
	}
	var v [3]float64
	for i := range v {
		x, ok := p.Values[i].Number()
		if !ok {
			return def
		}
		v[i] = x
	}
	return v
}

// Float returns the entry's first value as a number, or def.
func (ps Props) Float(name string, def float64) float64 {
	if x, ok := ps[name].Number(0); ok {
		return x
	}
	return def
}

// Int returns the entry's first value as an integer, or def.
func (ps Props) Int(name string, def int64) int64 {
	p := ps[name]
	if p == nil || len(p.Values) == 0 {
		return def
	}
	if x, ok := p.Values[0].Integer(); ok {
		return x
	}
	return def
}

// ReadProps reads a node's Properties70 child (nil when it has none).
func ReadProps(n *Node) Props {
	p70 := n.Child("Properties70")
	if p70 == nil {
		return nil
	}
	ps := make(Props, len(p70.Children))
	for _, c := range p70.Children {
		if c.Name != "P" || len(c.Props) < 4 {
			continue
		}
		p := &P{Name: c.Props[0].String, Type: c.Props[1].String, Label: c.Props[2].String, Flags: c.Props[3].String, Values: c.Props[4:]}
		ps[p.Name] = p
	}
	return ps
}

// SplitName splits an object's name property into its name and class: binary
// files write "Name\x00\x01Class", ASCII files "Class::Name".
func SplitName(s string) (name, class string) {
	if n, c, ok := strings.Cut(s, "\x00\x01"); ok {
		return n, c
	}
	if c, n, ok := strings.Cut(s, "::"); ok {
		return n, c
	}
	return s, ""
}

// Scene builds the object graph. An object without an integer id, a
// connection without two integer ids, or an id used twice is refused.
func (f *File) Scene() (*Scene, error) {
	s := &Scene{File: f, ByID: map[int64]*Object{}}
	if gs := f.Top("GlobalSettings"); gs != nil {
		s.GlobalSettings = ReadProps(gs)
	}
	if objs := f.Top("Objects"); objs != nil {
		for _, n := range objs.Children {
			if len(n.Props) == 0 {
				continue
			}
			id, ok := n.Props[0].Integer()
			if !ok || n.Props[0].Type == 'S' {
				return nil, fail(f.Name, RuleObject, n.Offset, "object %q has no integer id as its first property", n.Name)
			}
			o := &Object{ID: id, Class: n.Name, Node: n, Props: ReadProps(n)}
			if len(n.Props) > 1 {
				o.Name, _ = SplitName(n.Props[1].String)
			}
			if len(n.Props) > 2 {
				o.SubClass = n.Props[2].String
			}
			if prev, dup := s.ByID[id]; dup {
				return nil, fail(f.Name, RuleObject, n.Offset, "object id %d is used twice (%s %q and %s %q)", id, prev.Class, prev.Name, o.Class, o.Name)
			}
			s.ByID[id] = o
			s.Objects = append(s.Objects, o)
		}
	}
	if cs := f.Top("Connections"); cs != nil {
		for _, n := range cs.Children {
			if n.Name != "C" {
				continue
			}
			if len(n.Props) < 3 {
				return nil, fail(f.Name, RuleObject, n.Offset, "a connection has %d properties; it needs a kind and two ids", len(n.Props))
			}
			c := Connection{Kind: n.Props[0].String, Offset: n.Offset}
			var ok1, ok2 bool
			c.Child, ok1 = n.Props[1].Integer()
			c.Parent, ok2 = n.Props[2].Integer()
			if !ok1 || !ok2 {
				return nil, fail(f.Name, RuleObject, n.Offset, "connection %q does not join two integer ids", c.Kind)
			}
			if len(n.Props) > 3 {
				c.Property = n.Props[3].String
			}
			s.Connections = append(s.Connections, c)
		}
	}
	return s, nil
}
