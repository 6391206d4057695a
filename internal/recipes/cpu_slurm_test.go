package recipes

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func needTorch(t testing.TB) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, torch.distributed").Run(); err != nil {
		t.Skip("skipping: /usr/bin/python3 cannot import torch (install python3-torch: scripts/install-deps.sh)")
	}
}

// testCPUJob is a tiny-gpt 2m pretraining job small enough for two ranks
// sharing two loaded cores (4×16 bytes per rank and step).
func testCPUJob(name, dir string, maxSteps int) Job {
	return Job{
		Schema: 1, Name: name, Cluster: "test", Partition: cpuPartition,
		Model: ModelTinyGPT, Size: "2m", Mode: ModePretrain, Profile: ProfileCPU,
		Nodes: 2, TasksPerNode: 1, MaxSteps: maxSteps,
		Hyperparameters: map[string]string{"micro_batch": "4", "seq_length": "16", "log_every": "1"},
		Checkpoint:      Checkpoint{Dir: filepath.Join(dir, "ckpt"), IntervalSeconds: 4, KeepLast: 3},
		RunDir:          filepath.Join(dir, "run"),
		ExportPath:      filepath.Join(dir, "export"),
		SignalLead:      30,
		Generation:      "g1",
	}
}

func containsStep(ms []metric, step int) bool {
	for _, m := range ms {
		if m.Step == step {
			return true
		}
	}
	return false
}

func submit(t testing.TB, j Job) string {
	t.Helper()
	s, err := Render(j)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.MakeDirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(path, []byte(s.Body), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sbatch", "--parsable", path).CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

var jobField = regexp.MustCompile(`(\w+)=(\S*)`)

func jobInfo(t testing.TB, id string) map[string]string {
	t.Helper()
	out, err := exec.Command("scontrol", "-o", "show", "job", id).Output()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v", id, err)
	}
	m := map[string]string{}
	for _, f := range jobField.FindAllStringSubmatch(string(out), -1) {
		m[f[1]] = f[2]
	}
	return m
}

func waitJobEnd(t testing.TB, id string, limit time.Duration) map[string]string {
	t.Helper()
	var info map[string]string
	err := waitUntil(limit, "job "+id+" to end", func() bool {
		info = jobInfo(t, id)
		switch info["JobState"] {
		case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY":
			return true
		}
		return false
	})
	if err != nil {
		t.Fatalf("%v (state %s)", err, info["JobState"])
	}
	return info
}

func readProgress(t testing.TB, runDir string) (Progress, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, ProgressFile))
	if err != nil {
		return Progress{}, false
	}
	var p Progress
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("progress.json is not a Progress: %v: %s", err, data)
	}
	return p, true
}

type metric struct {
	Step       int     `json:"step"`
	Loss       float64 `json:"loss"`
	LR         float64 `json:"lr"`
	TokensPerS float64 `json:"tokens_per_s"`
	StepTime   float64 `json:"step_time"`
	MFU        float64 `json:"mfu"`
}

func readMetrics(t *testing.T, path string) []metric {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms []metric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics.jsonl line %q: %v", sc.Text(), err)
		}
		ms = append(ms, m)
	}
	return ms
}

func jobLog(t testing.TB, j Job, id string) string {
	data, _ := os.ReadFile(filepath.Join(j.RunDir, "slurm-"+id+".out"))
	return string(data)
}

// checkTorchCheckpoints loads every checkpoint with torch and returns
// their steps: each must hold model, optimizer, step and both ranks' RNG.
func checkTorchCheckpoints(t *testing.T, dir string) []int {
	t.Helper()
	prog := `
import json, os, re, sys, torch
root = sys.argv[1]
steps = []
for name in sorted(os.listdir(root)):
    m = re.match(r"^ckpt-(\d+)$", name)
    if not m:
        continue
    assert os.path.isfile(os.path.join(root, name, "COMPLETE")), name + " has no COMPLETE marker"
    s = torch.load(os.path.join(root, name, "state.pt"), map_location="cpu")
    assert s["step"] == int(m.group(1)), (name, s["step"])
    assert len(s["model"]) > 0 and "state" in s["optimizer"] and len(s["optimizer"]["state"]) > 0
    assert len(s["rng"]) == 2, "want the RNG state of both ranks"
    steps.append(s["step"])
print(json.dumps(sorted(steps)))
`
	out, err := exec.Command("/usr/bin/python3", "-c", prog, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("loading the checkpoints with torch: %v\n%s", err, out)
	}
	var steps []int
	if err := json.Unmarshal(out, &steps); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return steps
}

// TestCPURecipeUnderSlurm runs the rendered CPU recipe with sbatch on a
// real two-node Slurm: it trains with DDP over gloo to completion, and a
// run requeued mid-training (scontrol requeue, then USR1 to the batch
// shell) resumes from its last checkpoint each time.
func TestCPURecipeUnderSlurm(t *testing.T) {
	needTorch(t)
	needSlurm(t)

	t.Run("completes", func(t *testing.T) {
		dir := t.TempDir()
		const steps = 16
		j := testCPUJob("tiny-complete", dir, steps)
		id := submit(t, j)
		info := waitJobEnd(t, id, 90*time.Second)
		log := jobLog(t, j, id)
		if info["JobState"] != "COMPLETED" || info["ExitCode"] != "0:0" {
			t.Fatalf("job %s ended %s (exit %s); log:\n%s", id, info["JobState"], info["ExitCode"], log)
		}
		if !strings.Contains(log, "2 ranks") || info["NodeList"] != "n[1-2]" {
			t.Errorf("want one rank on each of n1 and n2 (nodes %s); log:\n%s", info["NodeList"], log)
		}
		p, ok := readProgress(t, j.RunDir)
		if !ok {
			t.Fatal("no progress.json")
		}
		if p.Step != steps || p.MaxSteps != steps || p.Restarts != 0 {
			t.Errorf("progress step %d/%d restarts %d, want %d/%d and 0", p.Step, p.MaxSteps, p.Restarts, steps, steps)
		}
		if !(p.LastLoss < 0.8*p.FirstLoss) {
			t.Errorf("loss did not fall clearly: first %.3f last %.3f", p.FirstLoss, p.LastLoss)
		}
		ms := readMetrics(t, filepath.Join(j.RunDir, "metrics.jsonl"))
		if len(ms) != steps || ms[0].Step != 1 || ms[steps-1].Step != steps || ms[steps-1].TokensPerS <= 0 || ms[steps-1].StepTime <= 0 || ms[0].LR <= 0 {
			t.Errorf("metrics.jsonl: %d records, want steps 1..%d with lr, tokens/s and step time: %+v", len(ms), steps, ms)
		}
		ckpts := checkTorchCheckpoints(t, j.Checkpoint.Dir)
		if len(ckpts) == 0 || len(ckpts) > j.Checkpoint.KeepLast || ckpts[len(ckpts)-1] != steps {
			t.Errorf("checkpoints at steps %v: want at most keep_last=%d, the newest at step %d", ckpts, j.Checkpoint.KeepLast, steps)
		}
		if p.LastCheckpointStep != steps || p.CheckpointCostSecond <= 0 || p.Checkpoints < len(ckpts) {
			t.Errorf("progress checkpoint fields: %+v", p)
		}
		if _, err := os.Stat(filepath.Join(j.ExportPath, "model.pt")); err != nil {
			t.Errorf("no exported model: %v", err)
		}
	})

	t.Run("requeue resumes", func(t *testing.T) {
		// Far more steps than the test waits for, so the requeue lands
		// mid-training on a fast machine too; the test cancels the job once
		// the second run has trained past its resume point.
		dir := t.TempDir()
		j := testCPUJob("tiny-requeue", dir, 100000)
		j.Checkpoint.IntervalSeconds = 1
		id := submit(t, j)
		t.Cleanup(func() { _ = exec.Command("scancel", id).Run() })
		var before Progress
		if err := waitUntil(60*time.Second, "a checkpoint and steps past it", func() bool {
			p, ok := readProgress(t, j.RunDir)
			before = p
			return ok && p.LastCheckpointStep > 0 && p.Step >= 6
		}); err != nil {
			t.Fatalf("%v; log:\n%s", err, jobLog(t, j, id))
		}
		if out, err := exec.Command("scontrol", "requeue", id).CombinedOutput(); err != nil {
			t.Fatalf("scontrol requeue: %v: %s", err, out)
		}
		var after Progress
		if err := waitUntil(90*time.Second, "the requeued run to train", func() bool {
			p, ok := readProgress(t, j.RunDir)
			after = p
			return ok && p.Restarts == 1 && p.Step >= before.Step+3
		}); err != nil {
			t.Fatalf("%v (progress %+v); log:\n%s", err, after, jobLog(t, j, id))
		}
		info := jobInfo(t, id)
		log := jobLog(t, j, id)
		if info["Restarts"] != "1" || info["JobState"] != "RUNNING" {
			t.Errorf("job %s is %s after %s restarts, want RUNNING after 1", id, info["JobState"], info["Restarts"])
		}
		// The step counter continues: the second run starts from a
		// checkpoint at or after the last one seen before the requeue, and
		// its metrics go on from there.
		m := regexp.MustCompile(`resumed from \S+/ckpt-(\d+) at step (\d+)`).FindStringSubmatch(log)
		if m == nil {
			t.Fatalf("log does not say the run resumed:\n%s", log)
		}
		resumedAt, _ := strconv.Atoi(m[2])
		if resumedAt < before.LastCheckpointStep || resumedAt < 1 {
			t.Errorf("the second run resumed at step %d; want at least the checkpoint at step %d seen before the requeue", resumedAt, before.LastCheckpointStep)
		}
		if !containsStep(readMetrics(t, filepath.Join(j.RunDir, "metrics.jsonl")), resumedAt+1) {
			t.Errorf("metrics do not go on at step %d after the resume", resumedAt+1)
		}
		// SIGTERM from the requeue made the job checkpoint before it
		// stopped: the lost work is under one interval.
		if after.LostSeconds >= float64(j.Checkpoint.IntervalSeconds) {
			t.Errorf("lost %.2f s, want under one interval (%d s)", after.LostSeconds, j.Checkpoint.IntervalSeconds)
		}
		if !(after.LastLoss < after.FirstLoss) {
			t.Errorf("loss did not fall across the requeue: first %.3f last %.3f", after.FirstLoss, after.LastLoss)
		}
		// What Slurm's --signal=B:USR1@N before the time limit and the
		// agent's stop notices do: USR1 to the batch shell only. The shell
		// forwards it, the trainer checkpoints and stops, and the script
		// requeues the job itself.
		if out, err := exec.Command("scancel", "--batch", "--signal=USR1", id).CombinedOutput(); err != nil {
			t.Fatalf("scancel --batch --signal=USR1: %v: %s", err, out)
		}
		var third Progress
		if err := waitUntil(90*time.Second, "the run after USR1 to train", func() bool {
			p, ok := readProgress(t, j.RunDir)
			third = p
			return ok && p.Restarts == 2 && p.Step >= after.Step+3
		}); err != nil {
			t.Fatalf("%v (progress %+v); log:\n%s", err, third, jobLog(t, j, id))
		}
		log = jobLog(t, j, id)
		if !strings.Contains(log, "requeueing job "+id) || strings.Count(log, "[tiny-gpt rank 0] resumed from ") != 2 {
			t.Errorf("want a self-requeue after USR1 and a second resume; log:\n%s", log)
		}
		if third.LostSeconds >= 2*float64(j.Checkpoint.IntervalSeconds) {
			t.Errorf("lost %.2f s over two stops, want under one interval each", third.LostSeconds)
		}
		if out, err := exec.Command("scancel", id).CombinedOutput(); err != nil {
			t.Fatalf("scancel: %v: %s", err, out)
		}
		waitJobEnd(t, id, 60*time.Second)
	})
}
