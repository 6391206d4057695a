package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A scale-down drains the nodes it removes and deletes each once it runs no job, waiting at most
// drain_timeout: a training job can outlive any apply, and an apply that blocks without saying why
// (seen: ten minutes) is worse than one that fails naming the job. Past the timeout the apply
// fails (drainActionFail), leaving the nodes drained so no new job lands there and the next apply
// deletes them once idle, or has the controller requeue their jobs (drainActionRequeue: they
// restart on nodes in service, from their last checkpoint for recipe jobs) and deletes them then,
// as rolling_update's on_job_timeout does.
const (
	defaultDrainTimeout = "10m"
	maxDrainTimeout     = 24 * time.Hour
	drainActionFail     = "fail"
	drainActionRequeue  = rollRequeue
)

// parseDrainTimeout reads drain_timeout: a Go duration from 0s ("do not wait") to 24h.
func parseDrainTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; write it like \"0s\", \"90s\", \"10m\" or \"2h\"", s)
	}
	if d < 0 || d > maxDrainTimeout {
		return 0, fmt.Errorf("%q is out of range: 0s to 24h", s)
	}
	return d, nil
}

// drainPolicy reads drain_timeout and drain_timeout_action from a plan (null: the defaults, as
// after an import).
func drainPolicy(m *model, diags *diag.Diagnostics) (time.Duration, string) {
	s := defaultDrainTimeout
	if !m.DrainTimeout.IsNull() && !m.DrainTimeout.IsUnknown() {
		s = m.DrainTimeout.ValueString()
	}
	d, err := parseDrainTimeout(s)
	if err != nil {
		diags.AddAttributeError(pathOf("drain_timeout"), "Invalid drain_timeout", "drain_timeout: "+err.Error())
	}
	action := drainActionFail
	if !m.DrainTimeoutAction.IsNull() && !m.DrainTimeoutAction.IsUnknown() {
		action = m.DrainTimeoutAction.ValueString()
	}
	return d, action
}

// drainAndDelete deletes the drain's nodes as they become idle, waiting at most drain_timeout for
// their jobs. Past it, drainActionFail fails naming the jobs still running; drainActionRequeue
// writes the drain again with Requeue (requeue), so the controller requeues those jobs, deletes
// the nodes once empty and warns, naming the jobs.
func (a *applier) drainAndDelete(ctx context.Context, wait appliedWait, drain cc.Drain, del func([]string) error, requeue func(cc.Drain) error) error {
	d := a.d
	res, err := wait.untilDrained(ctx, d.name, drain, d.drainTimeout, del)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		// The apply's own timeout came first.
		return fmt.Errorf("%w (the apply's timeout ran out while partition %s waited for %s)", err, d.name, res.describe())
	case !errors.Is(err, errDrainTimedOut):
		return err
	}
	if d.drainAction != drainActionRequeue {
		return fmt.Errorf("partition %s: the scale-down waited drain_timeout (%s) for %s and gave up. The nodes stay drained (no new job starts on them) and are deleted by the next apply once idle; raise drain_timeout, or set drain_timeout_action = %q to requeue their jobs",
			d.name, d.drainTimeout, res.describe(), drainActionRequeue)
	}
	tflog.Info(ctx, "requeueing the jobs on nodes of a scale-down past drain_timeout", map[string]any{"partition": d.name, "jobs": res.describeJobs()})
	rq := drain
	rq.Requeue = true
	if err := requeue(rq); err != nil {
		return err
	}
	// Only the nodes still there are waited for; the report keeps the drain's id.
	rest := rq
	rest.Nodes = cc.CompressHostlist(res.pending)
	if _, err := wait.untilDrained(ctx, d.name, rest, maxDrainTimeout, del); err != nil {
		return fmt.Errorf("partition %s: waiting for %s to empty after their jobs were requeued: %w", d.name, rest.Nodes, err)
	}
	a.notices.add("Partition "+d.name+": jobs requeued for a scale-down",
		fmt.Sprintf("drain_timeout (%s) passed while %s still ran %s; drain_timeout_action = %q had the controller requeue those jobs (they restart on nodes in service), and the nodes were deleted.",
			d.drainTimeout, rest.Nodes, res.describeJobs(), drainActionRequeue))
	return nil
}

// errDrainTimedOut: nodes of a drain still ran jobs when drain_timeout passed.
var errDrainTimedOut = errors.New("drain_timeout passed")

// drainResult is where a drain stands: the nodes not yet deleted and the jobs the controller last
// reported on them.
type drainResult struct {
	pending []string
	jobs    []cc.DrainJob
	// jobsKnown: the controller reported the jobs (an agent older than the report does not).
	jobsKnown bool
}

func (r drainResult) describeJobs() string {
	if !r.jobsKnown {
		return "their jobs (the controller's agent does not report which)"
	}
	if len(r.jobs) == 0 {
		return "no job (the last job was ending)"
	}
	return cc.DescribeDrainJobs(r.jobs)
}

func (r drainResult) describe() string {
	return fmt.Sprintf("%s to finish: %s", cc.CompressHostlist(r.pending), r.describeJobs())
}
