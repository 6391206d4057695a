package recipes

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exampleProgram is the documentation's custom training program (a PyTorch linear regression
// that uses the hypercompute helper module), read from examples/.
func exampleProgram(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "hypercompute_recipe_job", "train_regression.py"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A custom program under real Slurm, on two nodes: USR1 to the batch shell (what Slurm sends
// before the time limit and the agent on a host's stop notice) reaches the program through srun
// and the task wrapper, the program checkpoints and stops, the batch script requeues the job, and
// the next run resumes from that checkpoint (the step counter continues) and completes, with
// progress, restarts and lost work in progress.json as the recipes report them.
func TestCustomProgramUnderSlurm(t *testing.T) {
	needTorch(t)
	needSlurm(t)
	dir := t.TempDir()
	j := customJob("")
	j.Partition, j.TimeLimit, j.SignalLead, j.MaxSteps = cpuPartition, 0, 30, 600
	j.Env = nil
	// A command, so a shell stands between the task and the program: the signal must still reach
	// the program and the task must wait for its checkpoint. Slow steps let the test signal mid-run.
	prog := filepath.Join(dir, "train_regression.py")
	if err := os.WriteFile(prog, []byte(exampleProgram(t)), 0o755); err != nil {
		t.Fatal(err)
	}
	j.Custom.Command = "echo starting; " + prog + " --step-seconds 0.05 && echo program ended"
	// Model FLOPs of the example's step (6 × batch × features per rank), for MFU.
	j.Custom.FLOPsPerStep = 6 * 256 * 64 * 2
	j.Checkpoint = Checkpoint{Dir: filepath.Join(dir, "ckpt"), IntervalSeconds: 1, KeepLast: 2}
	j.RunDir, j.TensorBoardDir = filepath.Join(dir, "run"), filepath.Join(dir, "run")
	id := submit(t, j)
	t.Cleanup(func() { _ = exec.Command("scancel", id).Run() })

	var before Progress
	// progress.json is rewritten at each checkpoint (every second here) and at most once a second
	// otherwise, so it may never show a step past its checkpoint: a checkpoint is enough to signal.
	if err := waitUntil(90*time.Second, "a checkpoint", func() bool {
		p, ok := readProgress(t, j.RunDir)
		before = p
		if s := jobInfo(t, id)["JobState"]; s != "RUNNING" && s != "PENDING" {
			t.Fatalf("job %s is %s; log:\n%s", id, s, jobLog(t, j, id))
		}
		return ok && p.LastCheckpointStep > 0
	}); err != nil {
		t.Fatalf("%v (progress %+v); log:\n%s", err, before, jobLog(t, j, id))
	}
	if out, err := exec.Command("scancel", "--batch", "--signal=USR1", id).CombinedOutput(); err != nil {
		t.Fatalf("scancel --batch --signal=USR1: %v: %s", err, out)
	}
	info := waitJobEnd(t, id, 150*time.Second)
	log := jobLog(t, j, id)
	p, _ := readProgress(t, j.RunDir)
	if info["JobState"] != "COMPLETED" || info["Restarts"] != "1" || !p.Finished || p.Step != j.MaxSteps {
		t.Fatalf("job %s ended %s after %s restarts at step %d (finished %v), want COMPLETED after 1 at step %d; log:\n%s",
			id, info["JobState"], info["Restarts"], p.Step, p.Finished, j.MaxSteps, log)
	}
	stopped := regexp.MustCompile(`rank 0 stopped by SIGUSR1 at step (\d+) after a checkpoint`).FindStringSubmatch(log)
	resumed := regexp.MustCompile(`rank (\d) resumed from \S+/ckpt-(\d+) at step (\d+)`).FindAllStringSubmatch(log, -1)
	if stopped == nil || len(resumed) != 2 || !strings.Contains(log, "requeueing job "+id) {
		t.Fatalf("want a stop on USR1, a self-requeue and both ranks resuming; log:\n%s", log)
	}
	for _, r := range resumed {
		if r[3] != stopped[1] {
			t.Errorf("rank %s resumed at step %s, want the step it stopped at (%s): the stop checkpointed", r[1], r[3], stopped[1])
		}
	}
	if at, _ := strconv.Atoi(stopped[1]); at <= before.LastCheckpointStep {
		t.Errorf("stopped at step %d, not past the checkpoint at step %d seen before the signal", at, before.LastCheckpointStep)
	}
	if p.Restarts != 1 || p.LostSeconds >= float64(j.Checkpoint.IntervalSeconds) || len(p.LostByJob) != 1 {
		t.Errorf("progress: restarts %d, lost %.2f s (by job %v); want 1 restart losing under one interval (%d s)", p.Restarts, p.LostSeconds, p.LostByJob, j.Checkpoint.IntervalSeconds)
	}
	if !(p.LastLoss < p.FirstLoss/10) || p.LastCheckpointStep != j.MaxSteps || !(p.MFU > 0 && p.TrainSeconds > 0 && p.PeakTFLOPS > 0) {
		t.Errorf("progress: loss %.4f → %.4f, last checkpoint %d: %+v", p.FirstLoss, p.LastLoss, p.LastCheckpointStep, p)
	}
	ckpts, _ := filepath.Glob(filepath.Join(j.Checkpoint.Dir, "ckpt-*"))
	if len(ckpts) != j.Checkpoint.KeepLast {
		t.Errorf("checkpoints %v, want the newest keep_last=%d", ckpts, j.Checkpoint.KeepLast)
	}
}
