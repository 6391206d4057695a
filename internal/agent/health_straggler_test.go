package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// A node whose ranks compute a step well above the median of its job's nodes is a straggler; the
// others, a job on one node, and partitions without the check are left alone.
func TestFindStragglers(t *testing.T) {
	nodePart := map[string]string{"c-0": "cpu", "c-1": "cpu", "c-2": "cpu", "c-3": "cpu", "g-0": "gpu", "g-1": "gpu"}
	factor := map[string]float64{"cpu": 1.3}
	timing := func(node string, s float64) recipes.RankTiming {
		return recipes.RankTiming{Node: node, ComputeSeconds: s}
	}
	jobs := []jobTimings{
		{Job: "train", Timings: []recipes.RankTiming{timing("c-0", 0.30), timing("c-1", 0.32), timing("c-2", 0.71), timing("c-3", 0.29)}},
		// No check on gpu: a slow node there stays.
		{Job: "other", Timings: []recipes.RankTiming{timing("g-0", 0.1), timing("g-1", 0.9)}},
		// One node: nothing to compare with.
		{Job: "solo", Timings: []recipes.RankTiming{timing("c-3", 5)}},
	}
	got := findStragglers(jobs, nodePart, factor)
	if len(got) != 1 || !strings.Contains(got["c-2"], "job train: 0.710 s of compute per step, 2.37× the median 0.300 s of its other 3 nodes in cpu (limit 1.30×)") {
		t.Fatalf("stragglers %v, want c-2 alone with its evidence", got)
	}
	// Two nodes: each against the other, so a node far slower than its partner is found (against
	// the median of both, a mean, no node reaches 2×).
	if got := findStragglers([]jobTimings{{Job: "j", Timings: []recipes.RankTiming{timing("c-0", 0.19), timing("c-1", 1.92)}}}, nodePart, map[string]float64{"cpu": 2}); len(got) != 1 || got["c-1"] == "" {
		t.Errorf("two nodes, one 10× slower: stragglers %v, want c-1", got)
	}
	// Within the factor: no straggler.
	if got := findStragglers([]jobTimings{{Job: "j", Timings: []recipes.RankTiming{timing("c-0", 0.30), timing("c-1", 0.36)}}}, nodePart, factor); len(got) != 0 {
		t.Errorf("a node 1.09× the median was drained: %v", got)
	}
}

// Only fresh, complete timings count: a rank that stopped writing is no evidence.
func TestReadRankTimings(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	write := func(rank int, node string, at time.Time) {
		b, _ := json.Marshal(recipes.RankTiming{Rank: rank, Node: node, Step: 10, ComputeSeconds: 0.3, Time: at.UTC().Format(time.RFC3339Nano)})
		os.MkdirAll(filepath.Join(dir, recipes.RankTimingsDir), 0o755)
		if err := os.WriteFile(filepath.Join(dir, recipes.RankTimingsDir, string(rune('0'+rank))+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(0, "c-0", now.Add(-5*time.Second))
	write(1, "c-1", now.Add(-10*time.Minute))
	os.WriteFile(filepath.Join(dir, recipes.RankTimingsDir, "2.json"), []byte("{"), 0o644)
	got := readRankTimings(dir, now)
	if len(got) != 1 || got[0].Node != "c-0" {
		t.Errorf("timings %+v, want c-0's alone", got)
	}
}
