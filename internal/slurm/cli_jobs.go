package slurm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The job side of CLI: sbatch, scontrol and scancel, which every Slurm version has, for what the
// REST API of a version cannot do (a batch-only warning signal on v0.0.38) or before slurmrestd runs.

// ErrNoSuchJob is matched (errors.Is) by errors for a job id slurmctld does not know: never
// submitted, or ended longer ago than MinJobAge.
var ErrNoSuchJob = errors.New("slurm: slurmctld does not know the job")

// JobInfo is the part of one job's `scontrol -o show job` the agent acts on. Times are the
// controller's, zero while Slurm has none ("Unknown").
type JobInfo struct {
	ID int
	// State is Slurm's job state (RUNNING, PENDING, COMPLETED, ...), Reason why it is in it; "" for None.
	State, Reason string
	// Nodes is the job's hostlist, "" before it has any.
	Nodes string
	// StdOut is the path of the job's standard output with its patterns filled in.
	StdOut                         string
	SubmitTime, StartTime, EndTime time.Time
	// Restarts counts the job's requeues.
	Restarts int
}

// Submit submits a batch script file with sbatch, which reads the script's #SBATCH lines
// itself, and returns the job id.
func (c CLI) Submit(ctx context.Context, script string) (int, error) {
	out, err := c.run(ctx, "sbatch", "--parsable", script)
	if err != nil {
		return 0, err
	}
	// --parsable prints "<id>" or "<id>;<cluster>", after any warnings sbatch has.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	idText, _, _ := strings.Cut(strings.TrimSpace(lines[len(lines)-1]), ";")
	id, err := strconv.Atoi(idText)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("slurm: sbatch printed no job id: %q", out)
	}
	return id, nil
}

// Job reads one job with `scontrol -o show job`; an error matching ErrNoSuchJob when slurmctld
// does not know it.
func (c CLI) Job(ctx context.Context, id int) (JobInfo, error) {
	out, err := c.run(ctx, "scontrol", "-o", "show", "job", strconv.Itoa(id))
	if err != nil {
		if strings.Contains(out, "Invalid job id") {
			return JobInfo{}, fmt.Errorf("job %d: %w", id, ErrNoSuchJob)
		}
		return JobInfo{}, err
	}
	return ParseJobLine(out)
}

var jobFieldRE = regexp.MustCompile(`(?:^|\s)(JobId|JobState|Reason|NodeList|StdOut|SubmitTime|StartTime|EndTime|Restarts)=(\S*)`)

// ParseJobLine reads one line of `scontrol -o show job`. Its times are the controller's local
// time without a zone, read here in this process's zone: the agent runs on the controller.
func ParseJobLine(line string) (JobInfo, error) {
	f := map[string]string{}
	for _, m := range jobFieldRE.FindAllStringSubmatch(line, -1) {
		if _, seen := f[m[1]]; !seen {
			f[m[1]] = m[2]
		}
	}
	if f["JobState"] == "" {
		if len(line) > 300 {
			line = line[:300] + "..."
		}
		return JobInfo{}, fmt.Errorf("slurm: scontrol show job printed no JobState: %q", line)
	}
	j := JobInfo{State: f["JobState"], Reason: f["Reason"], Nodes: f["NodeList"], StdOut: f["StdOut"],
		SubmitTime: scontrolTime(f["SubmitTime"]), StartTime: scontrolTime(f["StartTime"]), EndTime: scontrolTime(f["EndTime"])}
	j.ID, _ = strconv.Atoi(f["JobId"])
	j.Restarts, _ = strconv.Atoi(f["Restarts"])
	if j.Nodes == "(null)" {
		j.Nodes = ""
	}
	if j.Reason == "None" {
		j.Reason = ""
	}
	return j, nil
}

// scontrolTime reads a time scontrol prints ("2026-12-01T21:00:00"); zero for "Unknown", "None", "N/A".
func scontrolTime(v string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// CancelJob ends a job with scancel; a job already ended is no error.
func (c CLI) CancelJob(ctx context.Context, id int) error {
	_, err := c.run(ctx, "scancel", strconv.Itoa(id))
	return err
}

// SignalBatch sends a signal ("USR1") to a job's batch script only, not its steps: the script
// traps it and decides (a training script checkpoints, then ends or waits).
func (c CLI) SignalBatch(ctx context.Context, id int, signal string) error {
	if signal == "" || strings.ContainsAny(signal, " \t\n") {
		return fmt.Errorf("slurm: bad signal %q", signal)
	}
	_, err := c.run(ctx, "scancel", "--batch", "--signal="+signal, strconv.Itoa(id))
	return err
}

// RequeueJob puts a running or ended batch job back into the queue. Slurm holds a requeued job
// back until its BeginTime (cred_expire after the requeue); StartJobNow lifts that.
func (c CLI) RequeueJob(ctx context.Context, id int) error {
	_, err := c.run(ctx, "scontrol", "requeue", strconv.Itoa(id))
	return err
}

// StartJobNow lets a pending job start as soon as it can instead of at its BeginTime.
func (c CLI) StartJobNow(ctx context.Context, id int) error {
	_, err := c.run(ctx, "scontrol", "update", "jobid="+strconv.Itoa(id), "StartTime=now")
	return err
}

// SlurmdStartTime is when the node's slurmd last started, as slurmctld knows it (`scontrol show
// node`): a later time than a job's start means the node rebooted under the job.
func (c CLI) SlurmdStartTime(ctx context.Context, node string) (time.Time, error) {
	if err := checkHostlist(node); err != nil {
		return time.Time{}, err
	}
	out, err := c.run(ctx, "scontrol", "-o", "show", "node", node)
	if err != nil {
		return time.Time{}, err
	}
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "SlurmdStartTime="); ok {
			return time.ParseInLocation("2006-01-02T15:04:05", v, time.Local)
		}
	}
	return time.Time{}, fmt.Errorf("slurm: scontrol show node %s names no SlurmdStartTime", node)
}
