package core

import (
	"bytes"
	"encoding/json"
)

// MergePatch applies a JSON merge patch (RFC 7386) to doc: objects merge key by key, anything else (lists
// included) replaces, null deletes. This is how Compute's PATCH methods treat the request body, and working on
// JSON rather than decoded messages keeps "field: []" (clear the list) distinguishable from an absent field.
func MergePatch(doc, patch json.RawMessage) (json.RawMessage, error) {
	var d, p any
	if len(doc) > 0 {
		if err := decodeNumbers(doc, &d); err != nil {
			return nil, err
		}
	}
	if err := decodeNumbers(patch, &p); err != nil {
		return nil, err
	}
	return json.Marshal(mergeValue(d, p))
}

func mergeValue(doc, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(dm, k)
			continue
		}
		dm[k] = mergeValue(dm[k], v)
	}
	return dm
}

// PatchKeys lists the top-level fields a JSON object sets, so handlers can reject changes to immutable fields.
func PatchKeys(patch json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(patch, &m) != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// decodeNumbers decodes keeping numbers exact (json.Number), so large integers survive a round trip.
func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}
