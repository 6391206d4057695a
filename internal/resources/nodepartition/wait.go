package nodepartition

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// appliedWait is how the provider waits for the controller's agent to take a configuration.
type appliedWait struct {
	cl  *gcp.Clients
	ref cc.ClusterID
	// what names the change in errors ("partition a3mega").
	what string
	// poll bounds the interval between two looks.
	poll time.Duration
}

// report waits on the controller's report. Its failure is checked after its rejection of this
// configuration, which names the cause better.
func (w appliedWait) report() tfutil.ReportWait {
	return tfutil.ReportWait{Clients: w.cl, VM: tfutil.ControllerVM(w.ref), Max: w.poll, IgnoreFailure: true}
}

// untilApplied waits until the controller reports config-hash equal to the hash of what its
// metadata holds now (cc.AppliedHash: the cluster, every partition, not only this one, and the
// health policies). It fails with the agent's own words when the agent
// rejected that configuration or failed.
func (w appliedWait) untilApplied(ctx context.Context) error {
	var expected string
	last, err := w.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		inst, cfg, err := tfutil.ReadController(ctx, w.cl, w.ref)
		if err != nil {
			return false, err
		}
		// Every partition and health policy on the controller now is part of what it applies
		// (another one applied at the same time too).
		expected, err = cc.AppliedHash(cfg, metadataItems(inst))
		if err != nil {
			return false, fmt.Errorf("the cluster's configuration cannot be rendered: %w", err)
		}
		if rest, ok := r.Rejected(expected); ok {
			return false, fmt.Errorf("the controller %s rejected the configuration with %s and kept the previous one: %s", w.ref.Controller(), w.what, rest)
		}
		if r.Failed() {
			return false, fmt.Errorf("the controller %s failed (phase %s): %s", w.ref.Controller(), r.Phase, r.Error)
		}
		return r.Ready(expected), nil
	})
	if err != nil && ctx.Err() != nil {
		phase := last.Phase
		if phase == "" {
			phase = "none reported"
		}
		return fmt.Errorf("timed out waiting for the controller %s to apply the configuration with %s (config hash %s); last phase seen: %s, last applied hash: %q. Check the controller's serial console",
			w.ref.Controller(), w.what, tfutil.ShortHash(expected), phase, tfutil.ShortHash(last.ConfigHash))
	}
	return err
}

// untilDrained waits for the agent's drain report and hands each node to gone as soon as the
// report names it (drained, no job left), so idle nodes go at once and busy ones when their jobs
// end. It logs each change of the jobs it waits for, and returns once every node of the drain was
// handed over, or with where the drain stands when ctx ends or, errDrainTimedOut, when nodes still
// run jobs jobWait after the controller first reported the drain (so idle nodes always go, even
// with a jobWait of 0).
func (w appliedWait) untilDrained(ctx context.Context, partition string, drain cc.Drain, jobWait time.Duration, gone func([]string) error) (drainResult, error) {
	want, err := cc.ExpandHostlist(drain.Nodes)
	if err != nil {
		return drainResult{}, err
	}
	res := drainResult{pending: slices.Clone(want)}
	logged := ""
	var deadline time.Time
	_, err = w.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		if jr, err := cc.ParseDrainJobs(r.Attrs[cc.DrainJobsAttr(partition)]); err == nil && jr.ID == drain.ID {
			res.jobs, res.jobsKnown = jr.Jobs, true
		}
		id, done, ok := r.Drained(partition)
		if !ok || id != drain.ID {
			return false, nil
		}
		var ready []string
		res.pending = slices.DeleteFunc(res.pending, func(n string) bool {
			if slices.Contains(done, n) {
				ready = append(ready, n)
				return true
			}
			return false
		})
		if len(ready) > 0 {
			if err := gone(ready); err != nil {
				return false, err
			}
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(jobWait)
		}
		if len(res.pending) > 0 && !time.Now().Before(deadline) {
			return false, errDrainTimedOut
		}
		if len(res.pending) > 0 && res.jobsKnown {
			if now := cc.DescribeDrainJobs(res.jobs); now != logged && now != "" {
				logged = now
				tflog.Info(ctx, "scale-down waits for running jobs to end", map[string]any{
					"partition": partition, "nodes": cc.CompressHostlist(res.pending), "jobs": now,
				})
			}
		}
		return len(res.pending) == 0, nil
	})
	if err != nil && ctx.Err() != nil {
		return res, fmt.Errorf("timed out waiting for %s", res.describe())
	}
	return res, err
}
