package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
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
// requeue go through scontrol and scancel, which every Slurm version has.
type slurmJobs struct {
	layout cc.Layout
	env    []string
	rest   *slurm.Client
}

func newSlurmJobs(l cc.Layout) *slurmJobs {
	return &slurmJobs{
		layout: l,
		env:    slurmEnv(l),
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
	out, err := runCommand(ctx, s.env, "sbatch", "--parsable", file)
	if err != nil {
		return 0, err
	}
	// --parsable prints "<id>" or "<id>;<cluster>".
	idText, _, _ := strings.Cut(strings.TrimSpace(lastLines(out, 1)), ";")
	id, err := strconv.Atoi(idText)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("sbatch printed no job id: %q", out)
	}
	return id, nil
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

var scontrolFieldRE = regexp.MustCompile(`(?:^|\s)(JobState|Reason|NodeList|StdOut|SubmitTime|StartTime|EndTime|Restarts)=(\S*)`)

func (s *slurmJobs) show(ctx context.Context, id int) (jobStatus, error) {
	out, err := runCommand(ctx, s.env, "scontrol", "-o", "show", "job", strconv.Itoa(id))
	if err != nil {
		if strings.Contains(out, "Invalid job id") {
			return jobStatus{}, errJobUnknown
		}
		return jobStatus{}, err
	}
	return parseScontrolJob(out)
}

// parseScontrolJob reads one line of `scontrol -o show job`. Its times are
// the controller's local time without a zone.
func parseScontrolJob(line string) (jobStatus, error) {
	f := map[string]string{}
	for _, m := range scontrolFieldRE.FindAllStringSubmatch(line, -1) {
		if _, seen := f[m[1]]; !seen {
			f[m[1]] = m[2]
		}
	}
	if f["JobState"] == "" {
		return jobStatus{}, fmt.Errorf("scontrol show job printed no JobState: %q", clipText(line, 300))
	}
	t := func(v string) string {
		tm, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
		if err != nil {
			return ""
		}
		return tm.UTC().Format(time.RFC3339)
	}
	restarts, _ := strconv.Atoi(f["Restarts"])
	st := jobStatus{
		State: f["JobState"], Reason: f["Reason"], StdOut: f["StdOut"], Restarts: restarts,
		SubmitTime: t(f["SubmitTime"]), StartTime: t(f["StartTime"]), EndTime: t(f["EndTime"]),
	}
	if n := f["NodeList"]; n != "(null)" {
		st.Nodes = n
	}
	if st.Reason == "None" {
		st.Reason = ""
	}
	return st, nil
}

func (s *slurmJobs) cancel(ctx context.Context, id int) error {
	_, err := runCommand(ctx, s.env, "scancel", strconv.Itoa(id))
	return err
}

func (s *slurmJobs) requeue(ctx context.Context, id int) error {
	_, err := runCommand(ctx, s.env, "scontrol", "requeue", strconv.Itoa(id))
	return err
}

func (s *slurmJobs) release(ctx context.Context, id int) error {
	_, err := runCommand(ctx, s.env, "scontrol", "update", "jobid="+strconv.Itoa(id), "StartTime=now")
	return err
}

func (s *slurmJobs) slurmdStarted(ctx context.Context, node string) (time.Time, error) {
	t, err := slurmdStartTime(ctx, s.layout, node)
	return t.UTC(), err
}

// isTerminal reports whether Slurm's job state is one it ends in.
func isTerminal(state string) bool {
	return cc.JobReport{State: state}.Final()
}
