package agent

import (
	"context"
	"slices"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// requeueOn requeues the jobs still running on the drain's nodes that are not drained yet (a
// rolling replacement past its job timeout: clusterconfig.Drain.Requeue); releaseRollRequeued
// lets them start again at once elsewhere. A job that cannot be requeued is logged; the drain
// waits on, as it would for any job.
func (c *controller) requeueOn(ctx context.Context, l cc.Layout, partition string, nodes, drained []string) {
	cli := slurmCLI(l)
	seen := map[int]bool{}
	for _, n := range nodes {
		if slices.Contains(drained, n) {
			continue
		}
		jobs, err := cli.JobsOn(ctx, n, "RUNNING", "CONFIGURING")
		if err != nil {
			c.log.Warn("listing the jobs on a node drained for a rolling replacement", "partition", partition, "node", n, "error", err.Error())
			continue
		}
		for _, id := range slurm.JobIDs(jobs) {
			if seen[id] {
				continue
			}
			seen[id] = true
			if err := cli.RequeueJob(ctx, id); err != nil {
				c.log.Warn("requeueing a job off a node being replaced", "partition", partition, "node", n, "job", id, "error", err.Error())
				continue
			}
			if c.rollRequeued == nil {
				c.rollRequeued = map[int]bool{}
			}
			c.rollRequeued[id] = true
			c.log.Info("requeued a job off a node being replaced", "partition", partition, "node", n, "job", id)
		}
	}
}

// releaseRollRequeued lets the jobs requeueOn requeued start now: Slurm holds a requeued batch
// job back until its BeginTime (minutes), and it only takes the release once the job is pending
// for that reason, a pass or two after the requeue. It reports whether some job still waits for
// its release.
func (c *controller) releaseRollRequeued(ctx context.Context, l cc.Layout) bool {
	cli := slurmCLI(l)
	for id := range c.rollRequeued {
		j, err := cli.Job(ctx, id)
		switch {
		case err != nil:
			delete(c.rollRequeued, id) // gone from Slurm
		case j.State == "PENDING" && j.Reason == "BeginTime":
			if err := cli.StartJobNow(ctx, id); err != nil {
				c.log.Warn("releasing a job requeued off a node being replaced", "job", id, "error", err.Error())
				continue
			}
			c.log.Info("released a job requeued off a node being replaced", "job", id)
			delete(c.rollRequeued, id)
		case j.State != "PENDING" && j.State != "REQUEUED" && j.State != "COMPLETING" && j.State != "REQUEUE_HOLD":
			delete(c.rollRequeued, id) // running again, or ended
		}
	}
	return len(c.rollRequeued) > 0
}
