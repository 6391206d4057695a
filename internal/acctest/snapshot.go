package acctest

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// snapshot is everything the emulator holds, by kind and key, each resource as the API would
// answer it (labels, metadata, fingerprints and generations included), for proving that a step
// changed nothing at all.
type snapshot map[string][]byte

func (e *Env) snapshot(t *testing.T) snapshot {
	t.Helper()
	out := snapshot{}
	for kind, items := range e.Inventory().Kinds {
		for _, it := range items {
			out[kind+"/"+it.Key] = bytes.Clone(it.Resource)
		}
	}
	return out
}

// diff names what differs from before: resources added, removed or changed ("" when nothing).
func (s snapshot) diff(before snapshot) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		switch b, ok := before[k]; {
		case !ok:
			out = append(out, "added "+k)
		case !bytes.Equal(b, s[k]):
			out = append(out, "changed "+k+": "+string(b)+" -> "+string(s[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := s[k]; !ok {
			out = append(out, "removed "+k)
		}
	}
	return strings.Join(out, "; ")
}
