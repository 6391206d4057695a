package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
)

// standInPairs runs a pair's all_reduce_perf as `srun -l` would on two A3 nodes with the local
// cloud's stand-ins, each node's reporting its own bus bandwidth (a slow node's table shows its
// low figure), and counts the runs.
func standInPairs(t *testing.T, slow map[string]float64) (pairRun, *int) {
	t.Helper()
	dir := t.TempDir()
	tool := func(node string) string {
		p := filepath.Join(dir, node)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		tools, _ := gpustandin.Tools("a3-highgpu-8g", node, gpustandin.Fault{BusBandwidthGBps: slow[node]})
		if err := os.WriteFile(p, tools[gpustandin.AllReducePerf], 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := 0
	return func(ctx context.Context, a, b string) (float64, int, error) {
		runs++
		var out strings.Builder
		for i, n := range []string{a, b} {
			o, err := runCommand(ctx, nil, tool(n), "-b", "8M", "-e", "1G", "-f", "2", "-g", "8")
			if err != nil {
				return 0, 0, err
			}
			for _, line := range strings.Split(strings.TrimRight(o, "\n"), "\n") {
				fmt.Fprintf(&out, "%d: %s\n", i, line)
			}
		}
		return pairBusBW(out.String())
	}, &runs
}

// The pairwise pass: of four nodes, one whose NCCL bandwidth is low fails its first pair; the
// second pass pairs both nodes of that pair with known-good ones and names only the slow one.
func TestNCCLPairsIsolateTheBadNode(t *testing.T) {
	nodes := []string{"a3-0", "a3-1", "a3-2", "a3-3"}
	run, runs := standInPairs(t, map[string]float64{"a3-1": 12})
	bad, tested, err := ncclPairs(context.Background(), nodes, 60, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || !strings.Contains(bad["a3-1"], "below 60 GB/s: 12.0 GB/s with a3-0, 12.0 GB/s with a3-3") {
		t.Fatalf("drained %v, want a3-1 alone with its evidence; tested %+v", bad, tested)
	}
	// Two first-pass pairs, then each node of the failing pair with a good node.
	if *runs != 4 || len(tested) != 4 {
		t.Errorf("%d pair runs, want 4: %+v", *runs, tested)
	}
	if r := tested[2]; r.A != "a3-0" || !r.OK {
		t.Errorf("the healthy node of the failing pair should pass with a known-good node: %+v", r)
	}

	// Every node healthy: the first pass alone, nothing drained.
	run, runs = standInPairs(t, nil)
	if bad, _, err := ncclPairs(context.Background(), nodes, 60, run); err != nil || len(bad) != 0 || *runs != 2 {
		t.Errorf("healthy nodes: drained %v, %d runs, %v", bad, *runs, err)
	}
	// An odd node count pairs the last node with the first one.
	run, _ = standInPairs(t, map[string]float64{"a3-2": 10})
	bad, _, err = ncclPairs(context.Background(), nodes[:3], 60, run)
	if err != nil || len(bad) != 1 || bad["a3-2"] == "" {
		t.Errorf("three nodes, a3-2 slow: drained %v, %v", bad, err)
	}
	// No pair passes: there is nothing to isolate against, and nothing is drained.
	run, _ = standInPairs(t, map[string]float64{"a3-0": 5, "a3-1": 5, "a3-2": 5, "a3-3": 5})
	if bad, _, err := ncclPairs(context.Background(), nodes, 60, run); err == nil || len(bad) != 0 {
		t.Errorf("all slow: drained %v, err %v; want an error naming the missing known-good node", bad, err)
	}
}

// pairBusBW takes the slowest table of a two-node run and refuses output without one.
func TestPairBusBW(t *testing.T) {
	tools, _ := gpustandin.Tools("a3-highgpu-8g", "n", gpustandin.Fault{BusBandwidthGBps: 40})
	table := string(tools[gpustandin.AllReducePerf])
	table = table[strings.Index(table, "# nThread"):strings.LastIndex(table, "TABLE")]
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		out.WriteString("0: " + l + "\n")
	}
	out.WriteString("1: # nThread 1 nGpus 8\n")
	if bw, wrong, err := pairBusBW(out.String()); err != nil || bw != 40 || wrong != 0 {
		t.Errorf("got %v GB/s, %d wrong, %v; want 40 from rank 0's table", bw, wrong, err)
	}
	if _, _, err := pairBusBW("0: NCCL failure common.cu:1024 'unhandled cuda error'\n"); err == nil {
		t.Error("output without a table passed")
	}
}
