package nodepartition

import "testing"

func TestRollBatchSize(t *testing.T) {
	cases := []struct {
		maxUnavailable string
		minAvailable   int
		static, want   int
		fails          bool
	}{
		{"1", 0, 4, 1, false},
		{"3", 0, 4, 3, false},
		{"10", 0, 4, 4, false},
		{"25%", 0, 8, 2, false},
		{"25%", 0, 2, 1, false},  // at least one node
		{"100%", 1, 4, 3, false}, // never below the floor
		{"2", 3, 4, 1, false},
		{"1", 4, 4, 0, true}, // the floor keeps every node
	}
	for _, c := range cases {
		got, err := rollPolicy{maxUnavailable: c.maxUnavailable, minAvailable: c.minAvailable}.batchSize(c.static)
		if (err != nil) != c.fails || got != c.want {
			t.Errorf("max_unavailable %s, min_available %d of %d: batch %d, %v; want %d (fails %v)", c.maxUnavailable, c.minAvailable, c.static, got, err, c.want, c.fails)
		}
	}
}
