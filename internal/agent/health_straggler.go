package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// The straggler check runs on the controller: every rank of a running recipe job records its own
// compute time per step (recipes.RankTiming); a node whose time is above the check's factor times
// the median of the job's other nodes in its partition is drained with the evidence, and repaired as the
// check's action says. It compares the nodes of one job, which run the same step.

// stragglerFresh: older timings belong to a run that ended or a rank that stopped writing.
const stragglerFresh = 2 * time.Minute

// jobTimings are one running job's ranks' newest timings.
type jobTimings struct {
	Job     string
	Timings []recipes.RankTiming
}

// readRankTimings reads a run directory's rank timings written within stragglerFresh of now.
func readRankTimings(runDir string, now time.Time) []recipes.RankTiming {
	files, _ := filepath.Glob(filepath.Join(runDir, recipes.RankTimingsDir, "*.json"))
	var out []recipes.RankTiming
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var t recipes.RankTiming
		if json.Unmarshal(b, &t) != nil || t.Node == "" || t.ComputeSeconds <= 0 {
			continue
		}
		at, err := time.Parse(time.RFC3339, t.Time)
		if err != nil || now.Sub(at) > stragglerFresh {
			continue
		}
		out = append(out, t)
	}
	return out
}

// findStragglers returns the nodes to drain, with their evidence: per job and partition, a node
// whose compute time (the slowest of its ranks) is above factor times the median of the job's
// other nodes there. factor is the partition's straggler_factor; partitions without the check have none.
func findStragglers(jobs []jobTimings, nodePart map[string]string, factor map[string]float64) map[string]string {
	out := map[string]string{}
	for _, j := range jobs {
		byPart := map[string]map[string]float64{}
		for _, t := range j.Timings {
			p := nodePart[t.Node]
			if factor[p] == 0 {
				continue
			}
			if byPart[p] == nil {
				byPart[p] = map[string]float64{}
			}
			byPart[p][t.Node] = max(byPart[p][t.Node], t.ComputeSeconds)
		}
		for p, nodes := range byPart {
			if len(nodes) < 2 {
				continue
			}
			for n, s := range nodes {
				// Against the median of the job's other nodes: with the node itself counted, the
				// median of two nodes is their mean, which no node can exceed twice.
				others := make([]float64, 0, len(nodes)-1)
				for o, t := range nodes {
					if o != n {
						others = append(others, t)
					}
				}
				med := median(others)
				if ratio := s / med; ratio > factor[p] {
					if _, ok := out[n]; !ok {
						out[n] = fmt.Sprintf("job %s: %.3f s of compute per step, %.2f× the median %.3f s of its other %d nodes in %s (limit %.2f×)", j.Job, s, ratio, med, len(others), p, factor[p])
					}
				}
			}
		}
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// stragglerFactors is each partition's straggler factor where its plan runs the check.
func stragglerFactors(plan cc.HealthPlan) map[string]float64 {
	out := map[string]float64{}
	for p, ph := range plan.Partitions {
		for _, c := range ph.Checks {
			if c.Name == cc.CheckStraggler {
				out[p] = c.StragglerFactor
			}
		}
	}
	return out
}

// drainStragglers drains the stragglers among the running recipe jobs' nodes; nodes already
// drained keep their reason.
func (c *controller) drainStragglers(ctx context.Context, l cc.Layout, nodePart map[string]string, nodes slurmNodes) {
	factor := stragglerFactors(c.plan)
	if len(factor) == 0 {
		return
	}
	now := time.Now()
	var jobs []jobTimings
	for name, rec := range c.loadJobRecords(filepath.Join(c.stateDir, "jobs")) {
		if rec.Report == nil || rec.Report.State != "RUNNING" || rec.RunDir == "" {
			continue
		}
		jobs = append(jobs, jobTimings{Job: name, Timings: readRankTimings(rec.RunDir, now)})
	}
	for n, ev := range findStragglers(jobs, nodePart, factor) {
		if strings.HasPrefix(nodes.state[n], "drain") {
			continue
		}
		reason := cc.HealthDrainReason(cc.CheckStraggler, ev)
		if err := slurmCLI(l).UpdateNodes(ctx, n, slurm.NodeUpdate{State: "DRAIN", Reason: reason}); err != nil {
			c.log.Warn("draining a straggler", "node", n, "error", err.Error())
			continue
		}
		nodes.state[n], nodes.reason[n] = "draining", reason
		c.log.Warn("straggler drained", "node", n, "reason", reason)
	}
}
