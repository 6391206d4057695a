package clusterconfig

import (
	"encoding/json"
	"strings"
)

// The creation marker of a controller metadata key that one resource owns (a partition's
// PartitionKey, a health policy's HealthPolicyKey, a recipe job's JobKey).
//
// A create that stopped half-way (the provider or Terraform killed) leaves no state, only what it
// wrote to the cloud; the next apply must finish it, yet must never take over the key of the same
// name that another Terraform state made. So the value carries CreateMarkerField while its create
// has not finished, and the create removes it as its last step: a create takes over a key only
// while it is marked (see the provider's tfutil/key_ownership.go).
//
// The marker is an extra top-level field of the value's JSON object. Every reader of these keys
// (the agent, the provider, the tests' fakes) decodes with encoding/json, which ignores fields it
// does not know, so a marked key reads exactly as the same key unmarked: the controller applies a
// partition, policy or job while its create is still waiting for it, and the configuration hash
// (computed from the rendered files, not the key's text) is the same with and without it.
const (
	CreateMarkerField   = "hypercompute-create"
	CreateMarkerPending = "pending"
)

// markedPrefix opens a value that WithCreateMarker marked; WithoutCreateMarker removes exactly it,
// so the marked value of an encoder's output turns back into that output byte for byte.
const markedPrefix = `{"` + CreateMarkerField + `":"` + CreateMarkerPending + `",`

// WithCreateMarker is value (a non-empty JSON object, as every key's encoder writes) with the
// creation marker as its first field; ok is false when value is not such an object.
func WithCreateMarker(value string) (marked string, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(value), &fields) != nil || len(fields) == 0 {
		return "", false
	}
	if HasCreateMarker(value) {
		return value, true
	}
	rest := strings.TrimLeft(value, " \t\r\n")
	return markedPrefix + rest[1:], true
}

// HasCreateMarker says whether a key's value carries the creation marker: its create has not
// finished.
func HasCreateMarker(value string) bool {
	var v struct {
		Marker string `json:"hypercompute-create"`
	}
	return json.Unmarshal([]byte(value), &v) == nil && v.Marker == CreateMarkerPending
}

// WithoutCreateMarker is value without the creation marker; a value without one is returned as
// it is.
func WithoutCreateMarker(value string) string {
	if !HasCreateMarker(value) {
		return value
	}
	if rest, ok := strings.CutPrefix(value, markedPrefix); ok {
		return "{" + rest
	}
	// Marked some other way (written by hand): drop the field, at the cost of the formatting.
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(value), &fields) != nil {
		return value
	}
	delete(fields, CreateMarkerField)
	b, err := json.Marshal(fields)
	if err != nil {
		return value
	}
	return string(b)
}
