package agent

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// drainPending is how soon the controller looks again while a scale-down
// waits for jobs to leave nodes, so the provider deletes them promptly.
const drainPending = 5 * time.Second

// drains serves every partition's Drain (clusterconfig.Drain): the nodes a
// scale-down removes are drained in Slurm, and the partition's
// drained-<partition> guest attribute lists those that are drained and run
// no job any more. It reports whether some node still runs a job.
func (c *controller) drains(ctx context.Context, l cc.Layout, parts []cc.Partition, all slurmNodes) (pending bool, err error) {
	if all.err != nil {
		return false, fmt.Errorf("reading the state of the nodes: %w", all.err)
	}
	for _, p := range parts {
		if p.Drain == nil || strings.TrimSpace(p.Drain.Nodes) == "" {
			continue
		}
		nodes, err := cc.ExpandHostlist(p.Drain.Nodes)
		if err != nil {
			return false, fmt.Errorf("partition %s: drain: %w", p.Name, err)
		}
		var toDrain, drained []string
		for _, n := range nodes {
			st, known := all.state[n]
			node := slurm.NodeInfo{Name: n, State: st}
			switch {
			case !known:
				// Not in slurm.conf any more: nothing can run there.
				drained = append(drained, n)
			case node.Drained():
				drained = append(drained, n)
			case node.Draining():
			default:
				toDrain = append(toDrain, n)
			}
		}
		if len(toDrain) > 0 {
			list := cc.CompressHostlist(toDrain)
			if err := slurmCLI(l).UpdateNodes(ctx, list, slurm.NodeUpdate{State: "DRAIN", Reason: cc.DrainReasonOf(*p.Drain)}); err != nil {
				return false, fmt.Errorf("partition %s: draining %s for a scale-down: %w", p.Name, list, err)
			}
			c.log.Info("draining nodes for a scale-down", "partition", p.Name, "nodes", list, "drain", p.Drain.ID)
			// Idle nodes are drained at once; report them in this pass.
			if now, err := slurmCLI(l).Nodes(ctx, list); err == nil {
				for _, n := range toDrain {
					if now[n].Drained() {
						drained = append(drained, n)
					}
				}
			}
		}
		if len(drained) < len(nodes) {
			pending = true
			if p.Drain.Requeue {
				c.requeueOn(ctx, l, p.Name, nodes, drained)
			}
		}
		c.rep.set(ctx, cc.DrainedAttr(p.Name), cc.FormatDrained(p.Drain.ID, drained))
		c.reportDrainJobs(ctx, l, p, nodes, drained)
	}
	if c.releaseRollRequeued(ctx, l) {
		pending = true
	}
	return pending, c.resumeAbandonedDrains(ctx, l, parts, all)
}

// resumeAbandonedDrains returns to service the nodes this agent drained for a scale-down that no
// partition asks for any more (the scale-down was reverted, or the node now belongs to the dynamic
// range): left drained, they would never run a job again. Nodes drained for any other reason (by an
// administrator, by a health check) are left alone.
func (c *controller) resumeAbandonedDrains(ctx context.Context, l cc.Layout, parts []cc.Partition, all slurmNodes) error {
	wanted := map[string]bool{}
	for _, p := range parts {
		if p.Drain == nil {
			continue
		}
		nodes, err := cc.ExpandHostlist(p.Drain.Nodes)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			wanted[n] = true
		}
	}
	var resume []string
	for node, reason := range all.reason {
		if cc.OwnDrainReason(reason) && !wanted[node] {
			resume = append(resume, node)
		}
	}
	sort.Strings(resume)
	if len(resume) == 0 {
		return nil
	}
	list := cc.CompressHostlist(resume)
	if err := slurmCLI(l).UpdateNodes(ctx, list, slurm.NodeUpdate{State: "RESUME"}); err != nil {
		return fmt.Errorf("returning %s to service after an abandoned scale-down: %w", list, err)
	}
	c.log.Info("returned nodes drained for an abandoned scale-down to service", "nodes", list)
	return nil
}

// reportDrainJobs writes drain-jobs-<partition>: the jobs that keep the drain's nodes busy, so the
// provider can say which job a scale-down waits for. A failed squeue leaves the last report: the
// drain itself goes on, and the provider only loses the job names.
func (c *controller) reportDrainJobs(ctx context.Context, l cc.Layout, p cc.Partition, nodes, drained []string) {
	rep := cc.DrainJobs{ID: p.Drain.ID}
	var busy []string
	for _, n := range nodes {
		if !slices.Contains(drained, n) {
			busy = append(busy, n)
		}
	}
	if len(busy) > 0 {
		jobs, err := slurmCLI(l).JobsOn(ctx, cc.CompressHostlist(busy), slurm.BusyJobStates...)
		if err != nil {
			c.log.Warn("listing the jobs on nodes drained for a scale-down", "partition", p.Name, "error", err)
			return
		}
		for _, j := range jobs {
			on, _ := cc.ExpandHostlist(j.Nodes)
			on = slices.DeleteFunc(on, func(n string) bool { return !slices.Contains(busy, n) })
			rep.Jobs = append(rep.Jobs, cc.DrainJob{ID: j.ID, Name: j.Name, Nodes: cc.CompressHostlist(on)})
		}
	}
	c.rep.set(ctx, cc.DrainJobsAttr(p.Name), cc.FormatDrainJobs(rep))
}
