package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// cliJob writes a batch script that traps USR1 (writing marker<job id>), says it did (writing
// marker<job id>.trapped) and runs until cancelled,
// with extra #SBATCH lines, and submits it with CLI.Submit.
func cliJob(t *testing.T, c *testCluster, cli CLI, name, marker string, sbatch ...string) int {
	t.Helper()
	out := filepath.Join(c.Dir, "out")
	script := filepath.Join(out, name+".sbatch")
	body := fmt.Sprintf("#!/bin/sh\n#SBATCH --job-name=%s\n#SBATCH --partition=%s\n#SBATCH --output=%s/%s-%%j.out\n#SBATCH --chdir=%s\n",
		name, testPartition, out, name, out)
	for _, l := range sbatch {
		body += "#SBATCH " + l + "\n"
	}
	body += "trap 'echo checkpoint > " + marker + "$SLURM_JOB_ID' USR1\ntouch " + marker + "$SLURM_JOB_ID.trapped\n" +
		"while :; do sleep 0.1; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := cli.Submit(testContext(t), script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.CancelJob(context.Background(), id) })
	return id
}

// waitJobCLI waits until CLI.Job's view of job id satisfies ok.
func waitJobCLI(t *testing.T, cli CLI, id int, what string, ok func(JobInfo) bool) JobInfo {
	t.Helper()
	var j JobInfo
	var err error
	if werr := waitFor(60*time.Second, what, func() bool {
		j, err = cli.Job(testContext(t), id)
		return err == nil && ok(j)
	}); werr != nil {
		t.Fatalf("%v; last seen %+v, %v", werr, j, err)
	}
	return j
}

// CLI's job calls against the real Slurm of needCluster, in the order the agent uses them: a
// recipe job submitted with sbatch, told to checkpoint on a stop notice, requeued after its node
// restarted, cancelled at the end.
func TestRealCLIJobLifecycle(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cli := CLI{Conf: c.Conf}
	out := filepath.Join(c.Dir, "out")
	marker := filepath.Join(out, "usr1-")
	id := cliJob(t, c, cli, "cli", marker, "--requeue")
	waitState := func(what string, ok func(JobInfo) bool) JobInfo {
		t.Helper()
		return waitJobCLI(t, cli, id, what, ok)
	}
	j := waitState("the job running", func(j JobInfo) bool { return j.State == "RUNNING" })
	if j.ID != id || j.Nodes != testNode || j.StdOut != filepath.Join(out, fmt.Sprintf("cli-%d.out", id)) ||
		j.SubmitTime.IsZero() || j.StartTime.Before(j.SubmitTime) || j.Restarts != 0 {
		t.Errorf("running job = %+v, want job %d on %s with its output path and times", j, id, testNode)
	}
	jobs, err := cli.JobsOn(ctx, testNode, "RUNNING")
	if ids := JobIDs(jobs); err != nil || !slices.Contains(ids, id) {
		t.Errorf("JobsOn(%s, RUNNING) = %v, %v; want it to hold %d", testNode, ids, err, id)
	}
	if jobs, err := cli.JobsOn(ctx, testNode, "PENDING"); err != nil || slices.Contains(JobIDs(jobs), id) {
		t.Errorf("JobsOn(%s, PENDING) = %v, %v; want no job %d", testNode, jobs, err, id)
	}

	// RUNNING is slurmctld's word; the script may not have set its trap yet.
	if err := waitFor(30*time.Second, "the batch script to set its trap", func() bool {
		_, err := os.Stat(fmt.Sprintf("%s%d.trapped", marker, id))
		return err == nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := cli.SignalBatch(ctx, id, "USR1"); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(30*time.Second, "the batch script to trap USR1", func() bool {
		_, err := os.Stat(fmt.Sprintf("%s%d", marker, id))
		return err == nil
	}); err != nil {
		t.Fatal(err)
	}
	if j, err := cli.Job(ctx, id); err != nil || j.State != "RUNNING" {
		t.Errorf("after USR1 to the batch script the job is %+v, %v; want it still RUNNING (it trapped the signal)", j, err)
	}

	started, err := cli.SlurmdStartTime(ctx, testNode)
	if err != nil || started.IsZero() || started.After(time.Now()) {
		t.Errorf("SlurmdStartTime(%s) = %v, %v", testNode, started, err)
	}

	if err := cli.RequeueJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	// Slurm holds a requeued job back for cred_expire (120 s here): the job credential it had is
	// revoked on its node until then. The agent lets it start at once only where that node's slurmd
	// restarted, which forgets revoked credentials; StartJobNow is tested below on a job held by --begin.
	waitState("the requeued job held for its BeginTime", func(j JobInfo) bool {
		return j.State == "PENDING" && j.Restarts == 1 && j.Reason == "BeginTime"
	})

	if err := cli.CancelJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	waitState("the job cancelled", func(j JobInfo) bool { return j.State == "CANCELLED" && !j.EndTime.IsZero() })
	if err := cli.CancelJob(ctx, id); err != nil {
		t.Errorf("cancelling an ended job again: %v, want nil", err)
	}
	if _, err := cli.Job(ctx, 987654); !errors.Is(err, ErrNoSuchJob) {
		t.Errorf("Job(unknown) = %v, want ErrNoSuchJob", err)
	}
}

// A job held for a BeginTime an hour away starts at once after StartJobNow.
func TestRealCLIStartJobNow(t *testing.T) {
	c := needCluster(t)
	cli := CLI{Conf: c.Conf}
	id := cliJob(t, c, cli, "later", filepath.Join(c.Dir, "out", "later-usr1-"), "--begin=now+1hour")
	waitJobCLI(t, cli, id, "the job held for its BeginTime", func(j JobInfo) bool {
		return j.State == "PENDING" && j.Reason == "BeginTime"
	})
	if err := cli.StartJobNow(testContext(t), id); err != nil {
		t.Fatal(err)
	}
	waitJobCLI(t, cli, id, "the released job running", func(j JobInfo) bool { return j.State == "RUNNING" })
	if err := cli.CancelJob(testContext(t), id); err != nil {
		t.Fatal(err)
	}
}
