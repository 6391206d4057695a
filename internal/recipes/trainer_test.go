package recipes

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runTrainer runs the embedded trainer as a single rank (no Slurm) on the
// trainer config Render would write for j, and returns its output.
func runTrainer(t testing.TB, j Job, wantExit int) string {
	t.Helper()
	return runTrainerEnv(t, j, wantExit)
}

// runTrainerEnv is runTrainer with more environment (e.g. SLURM_JOB_ID).
func runTrainerEnv(t testing.TB, j Job, wantExit int, env ...string) string {
	t.Helper()
	r, err := Validate(j)
	if err != nil {
		t.Fatal(err)
	}
	hp, _ := ResolveHyperparameters(r, j.Hyperparameters)
	dir := t.TempDir()
	prog := filepath.Join(dir, "train.py")
	cfg := filepath.Join(dir, "recipe.json")
	if err := os.WriteFile(prog, []byte(CPUTrainer()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(marshalIndent(newTrainerConfig(j, r, hp))), 0o644); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", prog, cfg)
	cmd.Env = append(os.Environ(), "RANK=0", "WORLD_SIZE=1", "LOCAL_RANK=0", "MASTER_ADDR=127.0.0.1",
		fmt.Sprintf("MASTER_PORT=%d", ports[0]), "SLURM_CPUS_ON_NODE=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != wantExit {
		t.Fatalf("trainer exited %d, want %d:\n%s", code, wantExit, out)
	}
	return string(out)
}

func singleRankJob(dir, mode string, steps int) Job {
	j := testCPUJob("direct", dir, steps)
	j.Mode, j.Nodes = mode, 1
	j.Checkpoint.IntervalSeconds = 3600
	return j
}

func progressOf(t testing.TB, j Job) Progress {
	t.Helper()
	p, ok := readProgress(t, j.RunDir)
	if !ok {
		t.Fatalf("no %s in %s", ProgressFile, j.RunDir)
	}
	return p
}

// TestTrainerCheckpoints runs the trainer directly: the auto interval is
// Young/Daly from the measured cost, a torn checkpoint is never loaded, a
// restart continues the step counter, and continued pretraining and SFT
// start from resume_from's weights.
func TestTrainerCheckpoints(t *testing.T) {
	needTorch(t)
	dir := t.TempDir()

	pre := singleRankJob(dir, ModePretrain, 6)
	pre.Checkpoint = Checkpoint{Dir: pre.Checkpoint.Dir, Auto: true, MTBFSeconds: 3600, KeepLast: 2}
	runTrainer(t, pre, 0)
	p := progressOf(t, pre)
	if p.Step != 6 || p.LastCheckpointStep != 6 || p.CheckpointCostSecond <= 0 {
		t.Fatalf("after the first run: %+v", p)
	}
	if want := math.Sqrt(2 * p.CheckpointCostSecond * 3600); math.Abs(p.IntervalSeconds-want) > 1e-6*want {
		t.Errorf("auto interval %.4f s, want √(2·%.4f·3600) = %.4f", p.IntervalSeconds, p.CheckpointCostSecond, want)
	}
	// The first auto checkpoint comes after step 1 to measure the cost;
	// keep_last=2 leaves that one and the final one.
	if got := checkpointDirs(t, pre.Checkpoint.Dir); strings.Join(got, " ") != "ckpt-1 ckpt-6" {
		t.Errorf("checkpoint directories %v, want ckpt-1 ckpt-6", got)
	}
	checkMFU(t, pre, p)
	// The report's loss curve: every logged step (log_every=1), and the checkpoints' steps.
	if got := historySteps(p); got != "1 2 3 4 5 6" || fmt.Sprint(p.CheckpointSteps) != "[1 6]" || math.Abs(p.History[5].Loss-p.LastLoss) > 1e-5 {
		t.Errorf("history steps %q, checkpoint steps %v, want 1..6 and [1 6] ending at the last loss (rounded as metrics.jsonl): %+v", got, p.CheckpointSteps, p.History)
	}

	t.Run("torn checkpoint is never loaded", func(t *testing.T) {
		torn := filepath.Join(pre.Checkpoint.Dir, "ckpt-50")
		if err := os.MkdirAll(torn, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(torn, "state.pt"), []byte("half a file"), 0o644); err != nil {
			t.Fatal(err)
		}
		leftover := filepath.Join(pre.Checkpoint.Dir, ".tmp-ckpt-7-999")
		if err := os.MkdirAll(leftover, 0o755); err != nil {
			t.Fatal(err)
		}
		first := progressOf(t, pre).FirstLoss
		more := pre
		more.MaxSteps = 8
		out := runTrainerEnv(t, more, 0, "SLURM_JOB_ID=101")
		if !strings.Contains(out, "resumed from "+pre.Checkpoint.Dir+"/ckpt-6 at step 6") {
			t.Fatalf("want a resume from ckpt-6, the newest complete checkpoint:\n%s", out)
		}
		p := progressOf(t, more)
		if p.Step != 8 || p.Restarts != 1 || p.FirstLoss != first {
			t.Errorf("after the restart: %+v", p)
		}
		// The curve goes on from the checkpoint the run resumed.
		if got := historySteps(p); got != "1 2 3 4 5 6 7 8" || fmt.Sprint(p.CheckpointSteps) != "[1 6 8]" {
			t.Errorf("after the restart: history steps %q, checkpoint steps %v, want 1..8 and [1 6 8]", got, p.CheckpointSteps)
		}
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("the temporary directory of a dead writer was not removed: %v", err)
		}
		if _, err := os.Stat(torn); !os.IsNotExist(err) {
			t.Errorf("the torn ckpt-50 (no COMPLETE marker) was not removed: %v", err)
		}
	})

	// A run killed again before its own first save never reaches prune: the
	// start itself clears what dead writers left, and keeps every complete
	// checkpoint.
	t.Run("partial checkpoints are removed at start", func(t *testing.T) {
		var left []string
		for _, name := range []string{".tmp-ckpt-9-111", ".tmp-ckpt-9-222", "ckpt-9"} {
			p := filepath.Join(pre.Checkpoint.Dir, name)
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "state.pt"), []byte("half"), 0o644); err != nil {
				t.Fatal(err)
			}
			left = append(left, name)
		}
		before := checkpointDirs(t, pre.Checkpoint.Dir)
		again := pre
		again.MaxSteps = 8 // nothing left to train: this run saves nothing
		out := runTrainerEnv(t, again, 0, "SLURM_JOB_ID=102")
		if !strings.Contains(out, "removed partial checkpoints of an interrupted writer: "+strings.Join(left, " ")) {
			t.Errorf("want the removal logged with its names:\n%s", out)
		}
		got := strings.Join(checkpointDirs(t, pre.Checkpoint.Dir), " ")
		var want []string
		for _, n := range before {
			if !slices.Contains(left, n) {
				want = append(want, n)
			}
		}
		if got != strings.Join(want, " ") || !strings.Contains(got, "ckpt-8") {
			t.Errorf("checkpoint directories %q, want the complete ones %q", got, want)
		}
		// Each restart charged the work it redid to the run that stopped: the first run (no
		// Slurm job) and job 101; job 102, which stopped nothing, has no share.
		p := progressOf(t, again)
		if _, ok := p.LostByJob["102"]; ok || p.SlurmJobID != "102" || len(p.LostByJob) != 2 ||
			math.Abs(p.LostByJob[""]+p.LostByJob["101"]-p.LostSeconds) > 1e-9 {
			t.Errorf("lost work by job %v (written by %q), want the first run's and job 101's shares summing to %v",
				p.LostByJob, p.SlurmJobID, p.LostSeconds)
		}
	})

	t.Run("continued pretraining starts from resume_from", func(t *testing.T) {
		cont := singleRankJob(filepath.Join(dir, "cont"), ModeContinuedPretrain, 3)
		cont.Checkpoint.ResumeFrom = pre.Checkpoint.Dir
		out := runTrainer(t, cont, 0)
		if !strings.Contains(out, "initialized from the weights of "+pre.Checkpoint.Dir+"/ckpt-8") {
			t.Fatalf("want the weights of the newest complete checkpoint (ckpt-8):\n%s", out)
		}
		p := progressOf(t, cont)
		if p.Step != 3 || p.Restarts != 0 {
			t.Errorf("continued pretraining is a new run of its own steps: %+v", p)
		}
		// Trained weights predict bytes far better than the ln 256 ≈ 5.5
		// of a fresh model.
		if p.FirstLoss > 4.5 {
			t.Errorf("first loss %.3f: the trained weights were not used", p.FirstLoss)
		}
	})

	t.Run("sft", func(t *testing.T) {
		sft := singleRankJob(filepath.Join(dir, "sft"), ModeSFT, 3)
		sft.Checkpoint.ResumeFrom = filepath.Join(pre.Checkpoint.Dir, "ckpt-8")
		out := runTrainer(t, sft, 0)
		if !strings.Contains(out, "initialized from the weights of "+pre.Checkpoint.Dir+"/ckpt-8") {
			t.Fatalf("want the weights of ckpt-8:\n%s", out)
		}
		if p := progressOf(t, sft); p.Step != 3 || !(p.LastLoss > 0) {
			t.Errorf("sft: %+v", p)
		}
	})

	t.Run("resume_from without a complete checkpoint fails", func(t *testing.T) {
		bad := singleRankJob(filepath.Join(dir, "bad"), ModeContinuedPretrain, 2)
		bad.Checkpoint.ResumeFrom = filepath.Join(pre.Checkpoint.Dir, "ckpt-50")
		out := runTrainer(t, bad, 1)
		if !strings.Contains(out, "holds no complete checkpoint") {
			t.Errorf("want the torn checkpoint refused:\n%s", out)
		}
	})
}

func checkpointDirs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// checkMFU: the trainer measured its matmul peak, and every logged step's
// MFU is Go's FLOPs count for the step (FLOPsPerToken × tokens) over its
// step time over that peak; the progress file's MFU is their
// step-time-weighted mean.
func checkMFU(t *testing.T, j Job, p Progress) {
	t.Helper()
	if !(p.PeakTFLOPS > 0) || !(p.MFU > 0 && p.MFU < 1) || !(p.TrainSeconds > 0) {
		t.Fatalf("progress MFU %.4f over %.3f s against a peak of %.4f TFLOP/s: want a measured peak and 0 < MFU < 1", p.MFU, p.TrainSeconds, p.PeakTFLOPS)
	}
	r, err := Validate(j)
	if err != nil {
		t.Fatal(err)
	}
	seq, mb := atoiMust(j.Hyperparameters["seq_length"]), atoiMust(j.Hyperparameters["micro_batch"])
	a := *r.Architecture
	flops := FLOPsPerToken(tinyGPTParameters(a, seq), a.Layers, a.DModel, seq) * float64(mb*seq)
	ms := readMetrics(t, filepath.Join(j.RunDir, "metrics.jsonl"))
	var weighted, total float64
	for _, m := range ms {
		want := flops / m.StepTime / (p.PeakTFLOPS * 1e12)
		if math.Abs(m.MFU-want) > 0.02*want+1e-5 {
			t.Errorf("step %d: MFU %.5f, want %.5f (%.3g FLOPs in %.5f s at %.4f TFLOP/s)", m.Step, m.MFU, want, flops, m.StepTime, p.PeakTFLOPS)
		}
		weighted += m.MFU * m.StepTime
		total += m.StepTime
	}
	// log_every 1: every step is logged, so the weighted mean is the file's.
	if mean := weighted / total; math.Abs(p.MFU-mean) > 0.02*mean+1e-4 {
		t.Errorf("progress MFU %.5f, want the step-time-weighted mean %.5f of %d steps", p.MFU, mean, len(ms))
	}
	t.Logf("tiny-gpt MFU %.1f%% of a measured %.1f GFLOP/s fp32 matmul peak (%d steps, %.3f s of steps)", 100*p.MFU, 1000*p.PeakTFLOPS, len(ms), p.TrainSeconds)
}

func historySteps(p Progress) string {
	var s []string
	for _, h := range p.History {
		s = append(s, fmt.Sprint(h.Step))
	}
	return strings.Join(s, " ")
}
