package recipejob

import (
	"context"
	"fmt"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// pollMax bounds the interval between two looks at the controller's report.
const pollMax = 2 * time.Second

func reportWait(cl *gcp.Clients, ref cc.ClusterID) tfutil.ReportWait {
	// A failed pass of the controller's agent (a partition's bad
	// configuration) is not this job's failure: the agent retries.
	return tfutil.ReportWait{Clients: cl, VM: tfutil.ControllerVM(ref), Max: pollMax, IgnoreFailure: true, Retry: gcp.IsRateLimited}
}

// waitFor waits until the controller reports the job's generation as far as
// until says (submitted, running, completed) and returns that report. A job
// the controller rejected, or that ended otherwise than COMPLETED, fails
// the wait with the controller's or Slurm's words.
func waitFor(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name, gen, until string) (cc.JobReport, error) {
	var last cc.JobReport
	seen := false
	_, err := reportWait(cl, ref).Until(ctx, func(r tfutil.Report) (bool, error) {
		rep, ok, err := jobReportFrom(r, name)
		if err != nil || !ok || rep.Generation != gen {
			return false, err
		}
		last, seen = rep, true
		if rep.State == cc.JobStateRejected {
			return false, fmt.Errorf("the controller %s could not submit job %s: %s", ref.Controller(), name, rep.Error)
		}
		if rep.Final() && rep.State != "COMPLETED" {
			return false, endedError(name, rep)
		}
		switch until {
		case waitSubmitted:
			return rep.JobID > 0, nil
		case waitRunning:
			return rep.State == "RUNNING" || rep.State == "COMPLETED", nil
		}
		return rep.State == "COMPLETED", nil
	})
	if err != nil && ctx.Err() != nil {
		what := "no report of this job yet: is the controller's agent running? See its serial console"
		if seen {
			what = fmt.Sprintf("Slurm job %d was last %s", last.JobID, describe(last))
		}
		return last, fmt.Errorf("timed out waiting for job %s to be %s; %s", name, until, what)
	}
	return last, err
}

// waitGone waits until the controller no longer reports the job: its agent
// deletes the report once the cancelled job holds no node.
func waitGone(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name string) error {
	var last cc.JobReport
	_, err := reportWait(cl, ref).Until(ctx, func(r tfutil.Report) (bool, error) {
		rep, ok, _ := jobReportFrom(r, name)
		last = rep
		return !ok, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for the controller %s to cancel job %s: Slurm job %d was last %s; check squeue on the controller",
			ref.Controller(), name, last.JobID, describe(last))
	}
	return err
}

func endedError(name string, rep cc.JobReport) error {
	msg := fmt.Sprintf("job %s (Slurm job %d) ended %s", name, rep.JobID, describe(rep))
	if rep.Error != "" {
		msg += ": " + rep.Error
	}
	if rep.LogPath != "" {
		msg += "; its log on the cluster is " + rep.LogPath
	}
	return fmt.Errorf("%s", msg)
}

func describe(rep cc.JobReport) string {
	s := rep.State
	if s == "" {
		s = "unreported"
	}
	if rep.Reason != "" {
		s += " (reason " + rep.Reason + ")"
	}
	return s
}
