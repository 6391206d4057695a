package agent

import (
	"slices"
	"testing"
)

// A partition keeps its spares while every node serves, gives one up per node out of service,
// and takes an idle node back once the node returns; never all of its nodes.
func TestSpareSet(t *testing.T) {
	members := []string{"c-0", "c-1", "c-2", "c-3"}
	for _, tc := range []struct {
		name     string
		want     int
		current  []string
		state    map[string]string
		inRepair map[string]bool
		spares   []string
	}{
		{"first idle nodes in name order", 1, nil, map[string]string{"c-0": "allocated", "c-1": "idle", "c-2": "idle", "c-3": "idle"}, nil, []string{"c-1"}},
		{"a spare stays", 1, []string{"c-3"}, map[string]string{"c-0": "idle", "c-1": "idle", "c-2": "idle", "c-3": "reserved"}, nil, []string{"c-3"}},
		{"a drained node takes the spare", 1, []string{"c-3"}, map[string]string{"c-0": "draining", "c-1": "allocated", "c-2": "idle", "c-3": "reserved"}, nil, nil},
		{"a node under repair takes one of two", 2, []string{"c-2", "c-3"}, map[string]string{"c-0": "idle*", "c-1": "allocated", "c-2": "reserved", "c-3": "reserved"}, map[string]bool{"c-0": true}, []string{"c-2"}},
		{"the repaired node becomes the spare", 1, nil, map[string]string{"c-0": "idle", "c-1": "allocated", "c-2": "allocated", "c-3": "allocated"}, nil, []string{"c-0"}},
		{"a failed spare is the node out of service", 1, []string{"c-3"}, map[string]string{"c-0": "allocated", "c-1": "idle", "c-2": "idle", "c-3": "drained"}, nil, nil},
		{"no idle node: wait", 1, nil, map[string]string{"c-0": "allocated", "c-1": "allocated", "c-2": "mixed", "c-3": "allocated"}, nil, nil},
		{"never every node", 9, nil, map[string]string{"c-0": "idle", "c-1": "idle", "c-2": "idle", "c-3": "idle"}, nil, []string{"c-0", "c-1", "c-2"}},
	} {
		got := spareSet(members, tc.want, tc.current, tc.state, tc.inRepair)
		if !slices.Equal(got, tc.spares) {
			t.Errorf("%s: spares %v, want %v", tc.name, got, tc.spares)
		}
	}
}
