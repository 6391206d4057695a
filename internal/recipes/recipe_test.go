package recipes

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func TestLookupNamesTheValidChoices(t *testing.T) {
	if _, err := Lookup(ModelLlama31, "70b", ModePretrain, "a3-mega"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, size, mode, profile, want string }{
		{"llama4", "8b", ModePretrain, "a4", `model "llama4" is not in the recipe catalog; models: gemma2, llama3.1, tiny-gpt`},
		{ModelLlama31, "13b", ModePretrain, "a4", `model llama3.1 has no size "13b"; sizes: 405b, 70b, 8b`},
		{ModelLlama31, "8b", "dpo", "a4", `llama3.1 8b has no mode "dpo"; modes: continued_pretrain, pretrain, rl, sft`},
		{ModelTinyGPT, "2m", ModeRL, ProfileCPU, `tiny-gpt 2m has no mode "rl"; modes: continued_pretrain, pretrain, sft. The CPU recipe (tiny-gpt) has no RL mode`},
		{ModelLlama31, "405b", ModeRL, "a4", `llama3.1 405b has no mode "rl"; modes: continued_pretrain, pretrain. NeMo-RL publishes no GRPO recipe`},
		{ModelLlama31, "8b", ModePretrain, ProfileCPU, `has no recipe for machine profile "cpu"; profiles: a3-high, a3-mega, a3-ultra, a4, a4x`},
		{ModelTinyGPT, "2m", ModePretrain, "a4", `profiles: cpu`},
	} {
		_, err := Lookup(c.model, c.size, c.mode, c.profile)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Lookup(%s, %s, %s, %s) = %v, want an error containing %q", c.model, c.size, c.mode, c.profile, err, c.want)
		}
	}
}

// TestCatalogCoverage: the models, sizes and modes on every GPU
// profile Google publishes recipes for.
func TestCatalogCoverage(t *testing.T) {
	profiles := []string{"a3-high", "a3-mega", "a3-ultra", "a4", "a4x"}
	for _, size := range []string{"8b", "70b", "405b"} {
		for _, p := range profiles {
			for _, mode := range []string{ModePretrain, ModeContinuedPretrain} {
				if _, err := Lookup(ModelLlama31, size, mode, p); err != nil {
					t.Error(err)
				}
			}
		}
	}
	// RL: NeMo-RL's published GRPO recipes (Llama 3.1 8B and 70B).
	for _, size := range []string{"8b", "70b"} {
		for _, p := range profiles {
			if _, err := Lookup(ModelLlama31, size, ModeRL, p); err != nil {
				t.Error(err)
			}
		}
	}
	for _, size := range []string{"9b", "27b"} {
		for _, p := range profiles {
			if _, err := Lookup(ModelGemma2, size, ModePretrain, p); err != nil {
				t.Error(err)
			}
		}
	}
	for _, size := range []string{"2m", "8m"} {
		for _, mode := range []string{ModePretrain, ModeContinuedPretrain, ModeSFT} {
			if _, err := Lookup(ModelTinyGPT, size, mode, ProfileCPU); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestCatalogConsistency: every GPU row fits its profile's machines (from
// the machine catalog), its batch splits over its data-parallel ranks, its
// precision is one the profile has a published recipe for, and continued
// pretraining needs resume_from.
func TestCatalogConsistency(t *testing.T) {
	for _, r := range List() {
		if len(r.Hyperparameters) == 0 || r.Source == "" || r.Nodes < r.MinNodes || r.MinNodes < 1 {
			t.Errorf("%s: incomplete row: %+v", r.Key(), r)
		}
		if r.NeedsResumeFrom != (r.Mode == ModeContinuedPretrain) {
			t.Errorf("%s: needs_resume_from = %v", r.Key(), r.NeedsResumeFrom)
		}
		if r.MaxSteps < 1 || r.Parameters < 1 || r.CheckpointBytesPerParameter < 1 {
			t.Errorf("%s: max_steps %d, parameters %d, checkpoint bytes per parameter %d", r.Key(), r.MaxSteps, r.Parameters, r.CheckpointBytesPerParameter)
		}
		// The row's precision is one the machine catalog says the profile trains in.
		if err := catalog.ValidateTrainingPrecision(r.Profile, r.Precision); err != nil {
			t.Errorf("%s: %v", r.Key(), err)
		}
		if !r.GPU() {
			if r.Architecture == nil {
				t.Errorf("%s: a CPU recipe needs its architecture", r.Key())
			}
			continue
		}
		perNode, err := catalog.ProfileGPUsPerNode(r.Profile)
		if err != nil {
			t.Errorf("%s: %v", r.Key(), err)
			continue
		}
		hp, _ := ResolveHyperparameters(r, nil)
		if err := checkParallelism(r, hp, r.Nodes*perNode); err != nil {
			t.Errorf("%s: %v", r.Key(), err)
		}
		switch {
		case r.Precision == "fp8" && r.Profile == "a3-high":
			t.Errorf("%s: no fp8 recipe is published for A3 High", r.Key())
		case r.Precision == "fp8" && r.Model == ModelGemma2:
			t.Errorf("%s: Gemma 2 recipes are bf16", r.Key())
		case r.Precision != "fp8" && r.Precision != "bf16":
			t.Errorf("%s: precision %q", r.Key(), r.Precision)
		}
		if r.Container == "" || !strings.HasPrefix(r.Container, "nvcr.io/nvidia/nemo:") && !(r.Mode == ModeRL && strings.HasPrefix(r.Container, "nvcr.io/nvidia/nemo-rl:")) {
			t.Errorf("%s: container %q", r.Key(), r.Container)
		}
	}
}

func TestResolveHyperparameters(t *testing.T) {
	r, _ := Lookup(ModelTinyGPT, "2m", ModePretrain, ProfileCPU)
	hp, err := ResolveHyperparameters(r, map[string]string{"learning_rate": "0.01", "micro_batch": "2"})
	if err != nil || hp["learning_rate"] != "0.01" || hp["micro_batch"] != "2" || hp["seq_length"] != "32" {
		t.Fatalf("got %v, %v", hp, err)
	}
	for over, want := range map[string]string{
		"dropout=0.1":       `hyperparameter "dropout" is not one recipe tiny-gpt/2m/pretrain@cpu takes; it takes: grad_clip, learning_rate, log_every, micro_batch, seed, seq_length, warmup_steps, weight_decay`,
		"micro_batch=1.5":   "hyperparameter micro_batch = \"1.5\" must be a whole number",
		"learning_rate=0":   "hyperparameter learning_rate = 0 must be greater than 0",
		"learning_rate=abc": `hyperparameter learning_rate = "abc" is not a number`,
		"seq_length=4":      "hyperparameter seq_length = 4 must be at least 8",
	} {
		k, v, _ := strings.Cut(over, "=")
		if _, err := ResolveHyperparameters(r, map[string]string{k: v}); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", over, err, want)
		}
	}
}

func TestValidateJob(t *testing.T) {
	base := testCPUJob("ok", "/tmp/x", 10)
	if _, err := Validate(base); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		edit func(*Job)
		want string
	}{
		"continued pretraining without resume_from": {func(j *Job) { j.Mode = ModeContinuedPretrain }, "checkpoint.resume_from is required"},
		"relative run dir":                          {func(j *Job) { j.RunDir = "runs/x" }, `run_dir = "runs/x" must be an absolute path`},
		"no interval":                               {func(j *Job) { j.Checkpoint.IntervalSeconds = 0 }, "checkpoint.interval_seconds = 0"},
		"auto without MTBF":                         {func(j *Job) { j.Checkpoint.IntervalSeconds, j.Checkpoint.Auto = 0, true }, "checkpoint.mtbf_seconds = 0"},
		"auto and interval":                         {func(j *Job) { j.Checkpoint.Auto, j.Checkpoint.MTBFSeconds = true, 100 }, "are exclusive"},
		"keep none":                                 {func(j *Job) { j.Checkpoint.KeepLast = 0 }, "checkpoint.keep_last = 0"},
		"gpu tasks on cpu":                          {func(j *Job) { j.TasksPerNode = 8 }, "tasks_per_node = 8"},
		"no steps":                                  {func(j *Job) { j.MaxSteps = 0 }, "max_steps = 0"},
		"signal after the limit":                    {func(j *Job) { j.TimeLimit = 1; j.SignalLead = 60 }, "signal_lead = 60 s must be shorter than time_limit = 1 min"},
		"launcher variable in env":                  {func(j *Job) { j.Env = map[string]string{"RANK": "3"} }, "env: RANK is set per task by the launcher"},
		"bad env name":                              {func(j *Job) { j.Env = map[string]string{"A-B": "1"} }, `env: "A-B" is not a valid environment variable name`},
		"name with a space":                         {func(j *Job) { j.Name = "a b" }, `name "a b" must be`},
		"gpu recipe on a cpu nodes":                 {func(j *Job) { j.Model, j.Size = ModelLlama31, "8b" }, `has no recipe for machine profile "cpu"`},
	}
	for name, c := range cases {
		j := base
		j.Checkpoint = base.Checkpoint
		c.edit(&j)
		if _, err := Validate(j); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
		if _, err := Render(j); err == nil {
			t.Errorf("%s: Render accepted an invalid job", name)
		}
	}
}

// TestRenderGPUTooFewNodes: a GPU job on fewer nodes than one replica
// needs is refused before anything is submitted.
func TestRenderGPUTooFewNodes(t *testing.T) {
	r, _ := Lookup(ModelLlama31, "405b", ModePretrain, "a4")
	j := goldenJob(r)
	j.Nodes = 4
	if _, err := Render(j); err == nil || !strings.Contains(err.Error(), "nodes = 4: recipe llama3.1/405b/pretrain@a4 needs at least 8") {
		t.Errorf("got %v", err)
	}
	j.Nodes = 12 // 96 GPUs: not a multiple of TP8·PP8
	if _, err := Render(j); err == nil || !strings.Contains(err.Error(), "96 GPUs do not divide into TP 8 × PP 8 × CP 1") {
		t.Errorf("got %v", err)
	}
}

// TestRenderCPUScript: the CPU script carries the trainer and its config
// inline, the launch environment and the requeue on the trainer's stop.
func TestRenderCPUScript(t *testing.T) {
	j := testCPUJob("tiny", "/lustre/runs/t", 50)
	s, err := Render(j)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n", "#SBATCH --requeue\n", "#SBATCH --signal=B:USR1@30\n",
		"#SBATCH --output=/lustre/runs/t/run/slurm-%j.out\n", "<<'HYPERCOMPUTE_TRAIN_PY'\n" + CPUTrainer(),
		`"max_steps": 50`, `"d_model": 192`, "exec /usr/bin/python3", "export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))",
		`[ -f "$RUN_DIR/STOPPED" ]`, `scontrol requeue "$SLURM_JOB_ID"`,
	} {
		if !strings.Contains(s.Body, w) {
			t.Errorf("script lacks %q", w)
		}
	}
	if strings.Join(s.Sbatch, " ") != "--job-name=tiny --partition=cpu --nodes=2 --ntasks-per-node=1 --requeue --signal=B:USR1@30 --open-mode=append --chdir=/lustre/runs/t/run --output=/lustre/runs/t/run/slurm-%j.out" {
		t.Errorf("sbatch flags %q", s.Sbatch)
	}
	if len(s.MakeDirs) != 1 || s.MakeDirs[0] != j.RunDir {
		t.Errorf("MakeDirs %v", s.MakeDirs)
	}
}

// The trainer bounds the loss history by the same figure the Go side documents.
func TestTrainerHistoryBound(t *testing.T) {
	want := "\nHISTORY_MAX = " + strconv.Itoa(ProgressHistoryMax) + "\n"
	if !strings.Contains(CPUTrainer(), want) {
		t.Errorf("cputrain/train.py does not set %q", strings.TrimSpace(want))
	}
}
