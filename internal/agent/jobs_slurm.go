package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// jobScheduler is how the controller's agent drives Slurm for recipe
// jobs; tests replace it.
type jobScheduler interface {
	// submit submits the rendered script (also written to file) and
	// returns the Slurm job id.
	submit(ctx context.Context, file string, s recipes.Script) (int, error)
	// show returns a job's state; errJobUnknown when slurmctld has none.
	show(ctx context.Context, id int) (jobStatus, error)
	cancel(ctx context.Context, id int) error
	requeue(ctx context.Context, id int) error
	// release lets a requeued job start now instead of at its BeginTime.
	release(ctx context.Context, id int) error
	// slurmdStarted is when slurmctld last saw the node's slurmd start.
	slurmdStarted(ctx context.Context, node string) (time.Time, error)
}

// errJobUnknown: slurmctld does not know the job (never, or no more).
var errJobUnknown = errors.New("slurmctld does not know the job")

// jobStatus is the part of `scontrol show job` a report carries; times
// are RFC 3339, empty while Slurm has none.
type jobStatus struct {
	State, Reason, Nodes, StdOut   string
	SubmitTime, StartTime, EndTime string
	Restarts                       int
}

// slurmJobs submits through slurmrestd where the REST API can express the
// job, and with sbatch on the controller where it cannot: slurmrestd
// v0.0.38 (Slurm 22.05) refuses the batch-only warning signal
// (--signal=B:USR1@N) checkpointing recipes rely on. State, cancel and
// requeue go through slurm.CLI (scontrol and scancel), which every Slurm
// version has.
type slurmJobs struct {
	cli  slurm.CLI
	rest *slurm.Client
}

func newSlurmJobs(l cc.Layout) *slurmJobs {
	return &slurmJobs{
		cli: slurmCLI(l),
		rest: slurm.NewClient(slurm.Config{
			BaseURL: "http://127.0.0.1:" + strconv.Itoa(cc.SlurmrestdPort),
			User:    "root",
			Token:   slurm.TokenFromScontrol("root", time.Hour),
		}),
	}
}

func (s *slurmJobs) submit(ctx context.Context, file string, sc recipes.Script) (int, error) {
	if !sc.NeedsBatchSignal {
		spec, err := jobSpecFromFlags(sc)
		if err == nil {
			id, err := s.rest.SubmitJob(ctx, spec)
			if !errors.Is(err, slurm.ErrUnsupported) {
				return id, err
			}
		}
		// A flag the REST API has no field for, or one this server's API
		// version refuses: sbatch reads the #SBATCH lines itself.
	}
	return s.cli.Submit(ctx, file)
}

// jobSpecFromFlags maps a script's sbatch flags onto the REST API's job
// fields; a flag it does not know is an error, so nothing is dropped
// silently.
func jobSpecFromFlags(sc recipes.Script) (slurm.JobSpec, error) {
	spec := slurm.JobSpec{Script: sc.Body, Env: map[string]string{"PATH": slurm.DefaultPath}}
	for _, f := range sc.Sbatch {
		k, v, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		num := func() (int, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("sbatch flag %s: %q is not a count", f, v)
			}
			return n, nil
		}
		var err error
		switch {
		case k == "requeue" && !hasValue:
			spec.Requeue = true
		case k == "job-name":
			spec.Name = v
		case k == "partition":
			spec.Partition = v
		case k == "nodes":
			spec.Nodes, err = num()
		case k == "ntasks-per-node":
			spec.TasksPerNode, err = num()
		case k == "cpus-per-task":
			spec.CPUsPerTask, err = num()
		case k == "gpus-per-node":
			spec.GPUsPerNode, err = num()
		case k == "output":
			spec.StdOut = v
		case k == "error":
			spec.StdErr = v
		case k == "chdir":
			spec.WorkDir = v
		case k == "signal":
			spec.Signal = v
		case k == "constraint":
			spec.Constraints = v
		case k == "time":
			var m int
			if m, err = num(); err == nil {
				spec.TimeLimit = time.Duration(m) * time.Minute
			}
		default:
			err = fmt.Errorf("sbatch flag %s has no slurmrestd field here", f)
		}
		if err != nil {
			return slurm.JobSpec{}, err
		}
	}
	if spec.WorkDir == "" {
		spec.WorkDir = "/tmp"
	}
	return spec, nil
}

func (s *slurmJobs) show(ctx context.Context, id int) (jobStatus, error) {
	j, err := s.cli.Job(ctx, id)
	if errors.Is(err, slurm.ErrNoSuchJob) {
		return jobStatus{}, errJobUnknown
	}
	if err != nil {
		return jobStatus{}, err
	}
	return jobStatusOf(j), nil
}

// jobStatusOf is the report's view of a job: times in UTC, RFC 3339.
func jobStatusOf(j slurm.JobInfo) jobStatus {
	t := func(tm time.Time) string {
		if tm.IsZero() {
			return ""
		}
		return tm.UTC().Format(time.RFC3339)
	}
	return jobStatus{
		State: j.State, Reason: j.Reason, Nodes: j.Nodes, StdOut: j.StdOut, Restarts: j.Restarts,
		SubmitTime: t(j.SubmitTime), StartTime: t(j.StartTime), EndTime: t(j.EndTime),
	}
}

func (s *slurmJobs) cancel(ctx context.Context, id int) error { return s.cli.CancelJob(ctx, id) }

func (s *slurmJobs) requeue(ctx context.Context, id int) error { return s.cli.RequeueJob(ctx, id) }

func (s *slurmJobs) release(ctx context.Context, id int) error { return s.cli.StartJobNow(ctx, id) }

func (s *slurmJobs) slurmdStarted(ctx context.Context, node string) (time.Time, error) {
	t, err := s.cli.SlurmdStartTime(ctx, node)
	return t.UTC(), err
}

// isTerminal reports whether Slurm's job state is one it ends in.
func isTerminal(state string) bool {
	return cc.JobReport{State: state}.Final()
}
