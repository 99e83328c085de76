package gltf

import "fmt"

// Rule names the requirement a glTF file broke. Every *Error carries one, and its
// message contains it, so a user can search for it and a test can check it.
type Rule string

// The rules Load and Inspect enforce.
const (
	RuleFile          Rule = "file"           // the file cannot be read
	RuleSyntax        Rule = "syntax"         // not valid glTF JSON or GLB container
	RuleVersion       Rule = "version"        // not glTF 2.0 (asset.version, GLB version)
	RuleExtension     Rule = "extension"      // a required extension is not implemented, or its data is bad
	RuleBuffer        Rule = "buffer"         // a buffer's data is missing, short or unreadable
	RuleBufferView    Rule = "buffer-view"    // a buffer view lies outside its buffer
	RuleAccessor      Rule = "accessor"       // an accessor is out of range or of a type its use forbids
	RuleNodeGraph     Rule = "node-graph"     // the node hierarchy is not a forest (cycle, two parents, bad child)
	RuleNodeTransform Rule = "node-transform" // a node's transform is not finite or not a TRS (shear)
	RuleSkin          Rule = "skin"           // a skin has no joints, a bad joint or bad inverse bind matrices
	RuleSkinIndex     Rule = "skin-index"     // a skin index is out of range
	RuleMesh          Rule = "mesh"           // a mesh cannot be used (not triangles, bad indices, ...)
	RuleChannelTarget Rule = "channel-target" // an animation channel targets a missing node or unknown path
	RuleSampler       Rule = "sampler"        // an animation sampler is missing or its input and output disagree
	RuleKeys          Rule = "keys"           // animation key times or values are not usable (NaN, Inf, order)
	RuleSkeleton      Rule = "skeleton"       // the skeleton built from the nodes was refused
	RuleMemory        Rule = "memory"         // decoding would allocate far more than the file holds (memory.go)
	RuleClipFile      Rule = "clip-file"      // a file given for its clips has none
	RuleClipFit       Rule = "clip-fit"       // a clip file's joints do not fit the character's (docs/formats/gltf.md §6)
)

// Error is a problem with a glTF file, or with an FBX or BVH file that the
// glTF source's rules read as one (a clip file bound to a character). Err, when
// set, is the underlying cause.
type Error struct {
	Format string // the file's format as the message names it: "" for glTF, "fbx", "bvh"
	File   string // the file being read
	Rule   Rule   // the requirement it broke
	Detail string // what exactly is wrong, naming the object (node 3, accessor 7, ...)
	Err    error  // the cause, if another error caused this one
}

func (e *Error) Error() string {
	format := e.Format
	if format == "" {
		format = "gltf"
	}
	msg := fmt.Sprintf("%s: %s: %s: %s", format, e.File, e.Rule, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// label names a glTF object for messages: "node 3" or "node 3 (Hips)".
func label(kind string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s %d", kind, i)
	}
	return fmt.Sprintf("%s %d (%s)", kind, i, name)
}
