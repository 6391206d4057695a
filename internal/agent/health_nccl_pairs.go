package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// The NCCL check's pairwise pass, run on the controller over a partition's idle nodes: a
// two-node all_reduce_perf per pair, first over disjoint pairs; a pair below the bus bandwidth
// threshold is split and each of its nodes is paired with a node of a passing pair, so only the
// node that fails with every partner (badNodesOfPairs) is drained. A slow link between two
// healthy nodes drains neither.

// pairRun runs a two-node all_reduce_perf and returns its bus bandwidth (GB/s) and wrong results.
type pairRun func(ctx context.Context, a, b string) (busbw float64, wrong int, err error)

// pairResult is one tested pair.
type pairResult struct {
	A, B  string
	BusBW float64
	Wrong int
	OK    bool
}

// ncclPairs tests nodes pairwise against min GB/s and returns the nodes to drain with their
// evidence, and every pair tested.
func ncclPairs(ctx context.Context, nodes []string, min float64, run pairRun) (map[string]string, []pairResult, error) {
	nodes = append([]string(nil), nodes...)
	sort.Strings(nodes)
	if len(nodes) < 2 {
		return nil, nil, fmt.Errorf("the pairwise NCCL test needs two nodes; %d idle", len(nodes))
	}
	var tested []pairResult
	test := func(a, b string) (pairResult, error) {
		bw, wrong, err := run(ctx, a, b)
		if err != nil {
			return pairResult{}, fmt.Errorf("all_reduce_perf on %s and %s: %w", a, b, err)
		}
		r := pairResult{A: a, B: b, BusBW: bw, Wrong: wrong, OK: wrong == 0 && bw >= min}
		tested = append(tested, r)
		return r, nil
	}
	// First pass: disjoint pairs; an odd node out is paired with the first node.
	var failing []pairResult
	var good []string
	for i := 0; i < len(nodes); i += 2 {
		a, b := nodes[i], nodes[0]
		if i+1 < len(nodes) {
			b = nodes[i+1]
		}
		r, err := test(a, b)
		if err != nil {
			return nil, tested, err
		}
		if r.OK {
			for _, n := range []string{a, b} {
				if !slices.Contains(good, n) {
					good = append(good, n)
				}
			}
		} else {
			failing = append(failing, r)
		}
	}
	if len(failing) == 0 {
		return nil, tested, nil
	}
	if len(good) == 0 {
		return nil, tested, errors.New("every pair is below the threshold: no known-good node to isolate the bad ones against")
	}
	// Second pass: each node of a failing pair with a known-good node it was not tested with.
	k := 0
	for _, f := range failing {
		for _, n := range []string{f.A, f.B} {
			for range good {
				g := good[k%len(good)]
				k++
				if g == n || containsPair(tested, n, g) {
					continue
				}
				if _, err := test(n, g); err != nil {
					return nil, tested, err
				}
				break
			}
		}
	}
	results := map[[2]string]bool{}
	for _, r := range tested {
		results[[2]string{r.A, r.B}] = r.OK
	}
	bad := map[string]string{}
	for _, n := range badNodesOfPairs(results) {
		var ev []string
		for _, r := range tested {
			if r.A == n || r.B == n {
				other := r.B
				if r.B == n {
					other = r.A
				}
				if r.Wrong > 0 {
					ev = append(ev, fmt.Sprintf("%d wrong results with %s", r.Wrong, other))
				} else {
					ev = append(ev, fmt.Sprintf("%.1f GB/s with %s", r.BusBW, other))
				}
			}
		}
		bad[n] = fmt.Sprintf("pairwise all_reduce bus bandwidth below %.0f GB/s: %s", min, strings.Join(ev, ", "))
	}
	return bad, tested, nil
}

func containsPair(tested []pairResult, a, b string) bool {
	for _, r := range tested {
		if r.A == a && r.B == b || r.A == b && r.B == a {
			return true
		}
	}
	return false
}

// pairBusBW reads `srun -l` output of a two-node all_reduce_perf: nccl-tests prints its table
// from rank 0, which "0: " labels; where more ranks print one (each node's stand-in does), the
// pair runs at the slowest.
func pairBusBW(out string) (float64, int, error) {
	byTask := map[string]*strings.Builder{}
	for _, line := range strings.Split(out, "\n") {
		task, rest, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		task = strings.TrimSpace(task)
		if _, err := strconv.Atoi(task); err != nil {
			continue
		}
		if byTask[task] == nil {
			byTask[task] = &strings.Builder{}
		}
		byTask[task].WriteString(rest + "\n")
	}
	bw, wrong, tables := 0.0, 0, 0
	for _, b := range byTask {
		r, err := parseAllReducePerf(b.String())
		if err != nil {
			continue
		}
		if tables == 0 || r.MaxBusBW < bw {
			bw = r.MaxBusBW
		}
		wrong += r.WrongResults
		tables++
	}
	if tables == 0 {
		return 0, 0, fmt.Errorf("all_reduce_perf printed no result table: %s", strings.TrimSpace(lastLines(out, 3)))
	}
	return bw, wrong, nil
}

// srunPair runs all_reduce_perf across two nodes as one Slurm step, a task per node driving
// every GPU of its node.
func srunPair(l cc.Layout, gpus int) pairRun {
	return func(ctx context.Context, a, b string) (float64, int, error) {
		step := slurm.Step{Nodes: []string{a, b}, Name: "hc-nccl-pairs", Immediate: time.Minute, TimeLimit: 5 * time.Minute}
		out, err := slurmCLI(l).RunStep(ctx, step, "env", "PATH="+strings.Join(toolDirs, ":"), "all_reduce_perf", "-b", "8M", "-e", "1G", "-f", "2", "-g", strconv.Itoa(gpus))
		bw, wrong, perr := pairBusBW(out)
		if perr != nil && err != nil {
			return 0, 0, err
		}
		return bw, wrong, perr
	}
}

// NCCLPairs runs the NCCL check's pairwise pass over a partition's idle nodes from the controller
// and drains each isolated bad node with the nccl check's reason; the controller's health passes
// then repair it as the policy says.
func NCCLPairs(ctx context.Context, partition string, stdout io.Writer) error {
	md := NewMetadata()
	attrs, err := md.Attributes(ctx)
	if err != nil {
		return err
	}
	cluster, err := cc.DecodeCluster([]byte(attrs[cc.ClusterKey]))
	if err != nil {
		return fmt.Errorf("this command runs on the cluster's controller: %w", err)
	}
	l := cluster.Layout.WithDefaults()
	plan, err := readControllerHealthPlan(l)
	if err != nil {
		return err
	}
	ph, ok := plan.Partitions[partition]
	if !ok {
		return fmt.Errorf("no health policy covers partition %q", partition)
	}
	var check *cc.HealthCheckSpec
	for i, c := range ph.Checks {
		if c.Name == cc.CheckNCCL {
			check = &ph.Checks[i]
		}
	}
	if check == nil {
		return fmt.Errorf("the health policy %s of partition %s has no nccl check (GPU checks are dropped on partitions without GPUs)", ph.Policy, partition)
	}
	// partition names a node set; one that joined another Slurm partition is found by its nodes.
	var nodes []string
	if set, ok := nodeSet(cc.PartitionsOf(cluster.Name, attrs), partition); ok && set.SlurmName() != set.Name {
		var all map[string]slurm.NodeInfo
		all, err = slurmCLI(l).Nodes(ctx, set.AllNodeNames(cluster.Name))
		for _, n := range slices.Sorted(maps.Keys(all)) {
			if all[n].State == "idle" {
				nodes = append(nodes, n)
			}
		}
	} else {
		nodes, err = slurmCLI(l).PartitionNodes(ctx, partition, "idle")
	}
	if err != nil {
		return err
	}
	bad, tested, err := ncclPairs(ctx, nodes, check.MinBusBandwidthGBps, srunPair(l, ph.GPUs))
	for _, r := range tested {
		fmt.Fprintf(stdout, "%s %s: %.1f GB/s, %d wrong (%s)\n", r.A, r.B, r.BusBW, r.Wrong, map[bool]string{true: "pass", false: "FAIL"}[r.OK])
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, len(bad))
	for n := range bad {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		reason := cc.HealthDrainReason(cc.CheckNCCL, bad[n])
		if err := slurmCLI(l).UpdateNodes(ctx, n, slurm.NodeUpdate{State: "DRAIN", Reason: reason}); err != nil {
			return fmt.Errorf("draining %s: %w", n, err)
		}
		fmt.Fprintf(stdout, "drained %s: %s\n", n, reason)
	}
	if len(names) == 0 {
		fmt.Fprintf(stdout, "%d nodes of %s passed\n", len(nodes), partition)
	}
	return nil
}

// readControllerHealthPlan reads the plan the controller resolved and published beside slurm.conf.
func readControllerHealthPlan(l cc.Layout) (cc.HealthPlan, error) {
	var plan cc.HealthPlan
	p := path.Join(l.ConfDir, cc.SharedHealthPlan)
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return plan, errors.New("no health policy applies to this cluster (the controller published no health plan)")
	}
	if err != nil {
		return plan, err
	}
	if err := json.Unmarshal(b, &plan); err != nil {
		return plan, fmt.Errorf("%s: %w", p, err)
	}
	return plan, nil
}

func nodeSet(parts []cc.Partition, name string) (cc.Partition, bool) {
	for _, p := range parts {
		if p.Name == name {
			return p, true
		}
	}
	return cc.Partition{}, false
}
