package gltf

import (
	"encoding/json"
	"fmt"
)

// metaKey is the key under a glTF object's extras that holds bonebake's data.
const metaKey = "bonebake"

// ModelMeta is what bonebake stores in a skin's extras so that a creature written
// by export-gltf bakes back into the same BPAT file: its species id and sockets.
// Other tools ignore it.
type ModelMeta struct {
	SpeciesID *uint32      `json:"species_id,omitempty"`
	Sockets   []SocketMeta `json:"sockets,omitempty"`
}

// SocketMeta is a socket on a joint, named by the joint's node name.
type SocketMeta struct {
	Name   string     `json:"name"`
	Bone   string     `json:"bone"`
	Offset [3]float32 `json:"offset"`
}

// ClipMeta is what bonebake stores in an animation's extras: how the clip is baked.
type ClipMeta struct {
	FPS     float64            `json:"fps,omitempty"`
	Loops   *bool              `json:"loops,omitempty"`
	Markers map[string]float32 `json:"markers,omitempty"`
	// Cycle is how long one pass of the clip lasts in a game, in seconds, when it
	// differs from the clip's duration (the built-in walk: .92 s for 24 frames at
	// 24 fps); bake measures ground speeds per this cycle (docs/formats/gait.md).
	Cycle float64 `json:"cycle,omitempty"`
}

// readMeta decodes extras[metaKey] into v; absent data leaves v as it is.
func readMeta(extras any, v any) error {
	m, ok := extras.(map[string]any)
	if !ok {
		return nil
	}
	raw, ok := m[metaKey]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("extras.%s: %w", metaKey, err)
	}
	return nil
}

func extras(v any) map[string]any { return map[string]any{metaKey: v} }
