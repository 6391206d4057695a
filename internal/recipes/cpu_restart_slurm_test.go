package recipes

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// killRank kills one trainer rank of job j with SIGKILL, as an OOM kill, a
// segfault or an NCCL abort would end it.
func killRank(t testing.TB, j Job) {
	t.Helper()
	if out, err := exec.Command("pkill", "-9", "-n", "-f", j.RunDir+"/train.py").CombinedOutput(); err != nil {
		t.Fatalf("pkill: %v: %s", err, out)
	}
}

// waitTrained waits until the job checkpointed and logged steps past it.
func waitTrained(t testing.TB, j Job, id string, pastStep int) Progress {
	t.Helper()
	var p Progress
	if err := waitUntil(90*time.Second, "a checkpoint and steps past it", func() bool {
		var ok bool
		p, ok = readProgress(t, j.RunDir)
		return ok && p.LastCheckpointStep > 0 && p.Step >= pastStep
	}); err != nil {
		t.Fatalf("%v (progress %+v); log:\n%s", err, p, jobLog(t, j, id))
	}
	return p
}

// A crashed rank is not the end of a run: the batch script restarts the
// step from the newest checkpoint by itself, up to max_restarts times, and
// gives up with the step's exit code after that; a step that fails before
// making any progress is never restarted.
func TestCPURecipeRestartPolicy(t *testing.T) {
	needTorch(t)
	needSlurm(t)

	t.Run("a killed rank restarts and the job completes", func(t *testing.T) {
		j := testCPUJob("tiny-crash", t.TempDir(), 60)
		j.Checkpoint.IntervalSeconds = 1
		j.Restart = RestartPolicy{MaxRestarts: 2, BackoffSeconds: 1}
		id := submit(t, j)
		t.Cleanup(func() { _ = exec.Command("scancel", id).Run() })
		before := waitTrained(t, j, id, 6)
		killRank(t, j)
		info := waitJobEnd(t, id, 180*time.Second)
		log := jobLog(t, j, id)
		p, _ := readProgress(t, j.RunDir)
		if info["JobState"] != "COMPLETED" || info["ExitCode"] != "0:0" || p.Step != j.MaxSteps {
			t.Fatalf("job %s ended %s (exit %s) at step %d of %d; log:\n%s", id, info["JobState"], info["ExitCode"], p.Step, j.MaxSteps, log)
		}
		if !strings.Contains(log, "automatic restart 1 of 2 in 1s") || p.Restarts != 1 || info["Restarts"] != "0" {
			t.Errorf("want one automatic restart inside the job (Slurm restarts %s, trainer restarts %d); log:\n%s", info["Restarts"], p.Restarts, log)
		}
		// The restarted run resumed from a checkpoint, not from step 0.
		if !strings.Contains(log, "[tiny-gpt rank 0] resumed from ") {
			t.Errorf("the restarted step did not resume from a checkpoint; log:\n%s", log)
		}
		lines := restartLines(t, j)
		if len(lines) != 1 || lines[0].JobID != id || lines[0].Attempt != 1 || lines[0].ExitCode == 0 || lines[0].Step < before.LastCheckpointStep {
			t.Errorf("%s: %+v, want one restart of job %s after step %d with the step's exit code", RestartsFile, lines, id, before.LastCheckpointStep)
		}
	})

	t.Run("gives up after max_restarts with the step's error", func(t *testing.T) {
		j := testCPUJob("tiny-giveup", t.TempDir(), 100000)
		j.Checkpoint.IntervalSeconds = 1
		j.Restart = RestartPolicy{MaxRestarts: 0, BackoffSeconds: 1}
		id := submit(t, j)
		t.Cleanup(func() { _ = exec.Command("scancel", id).Run() })
		waitTrained(t, j, id, 4)
		killRank(t, j)
		info := waitJobEnd(t, id, 60*time.Second)
		log := jobLog(t, j, id)
		if info["JobState"] != "FAILED" || info["ExitCode"] == "0:0" || !strings.Contains(log, "giving up after 0 of 0 automatic restarts") {
			t.Errorf("job %s ended %s (exit %s); want FAILED with the step's exit code and the reason in the log:\n%s", id, info["JobState"], info["ExitCode"], log)
		}
		if n := len(restartLines(t, j)); n != 0 {
			t.Errorf("%d restarts recorded, want none", n)
		}
	})

	t.Run("a step failing at once is not restarted", func(t *testing.T) {
		dir := t.TempDir()
		j := testCPUJob("tiny-bad", dir, 10)
		j.Mode = ModeContinuedPretrain
		j.Checkpoint.ResumeFrom = filepath.Join(dir, "no-checkpoint-here")
		j.Restart = RestartPolicy{MaxRestarts: 3, BackoffSeconds: 1}
		if err := os.MkdirAll(j.Checkpoint.ResumeFrom, 0o755); err != nil {
			t.Fatal(err)
		}
		id := submit(t, j)
		info := waitJobEnd(t, id, 90*time.Second)
		log := jobLog(t, j, id)
		if info["JobState"] != "FAILED" || !strings.Contains(log, "with no progress since it started: not restarting") ||
			strings.Contains(log, "automatic restart") {
			t.Errorf("job %s ended %s; want FAILED at once without a restart; log:\n%s", id, info["JobState"], log)
		}
	})
}

type restartLine struct {
	JobID    string `json:"job_id"`
	Attempt  int    `json:"attempt"`
	ExitCode int    `json:"exit_code"`
	Step     int    `json:"step"`
}

func restartLines(t *testing.T, j Job) []restartLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.RunDir, RestartsFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []restartLine
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r restartLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s line %q: %v", RestartsFile, l, err)
		}
		out = append(out, r)
	}
	return out
}
