package recipes

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// saveSteps renders a job and reads the checkpoint step count its launcher gets.
func saveSteps(t *testing.T, j Job) int {
	t.Helper()
	s, err := Render(j)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?:checkpoint\.save_interval=|log\.ckpt\.every_n_train_steps=|checkpointing\.save_period=)(\d+)`).FindStringSubmatch(s.Body)
	if m == nil {
		t.Fatalf("%s: no checkpoint step setting in the script", j.Model)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestGPUCheckpointIntervalBecomesSteps: a GPU recipe's checkpoint interval
// (a duration, or auto with the planned cost) reaches the framework as steps
// of the expected step time; an explicit save_interval_steps wins.
func TestGPUCheckpointIntervalBecomesSteps(t *testing.T) {
	for _, key := range []struct{ model, size, mode, profile string }{
		{ModelLlama31, "8b", ModePretrain, "a3-mega"},
		{ModelGemma2, "9b", ModePretrain, "a4"},
		{ModelLlama31, "70b", ModeRL, "a3-ultra"},
	} {
		r, err := Lookup(key.model, key.size, key.mode, key.profile)
		if err != nil {
			t.Fatal(err)
		}
		hp, _ := ResolveHyperparameters(r, nil)
		step, err := ExpectedStepSeconds(r, hp, r.Precision, r.Nodes)
		if err != nil || !(step > 0) {
			t.Fatalf("%s: expected step %v, %v", r.Key(), step, err)
		}
		j := goldenJob(r)
		j.Checkpoint.Auto, j.Checkpoint.MTBFSeconds, j.Checkpoint.CostSeconds = false, 0, 0
		// An interval of 400 steps' time is 400 steps; twice that is 800.
		j.Checkpoint.IntervalSeconds = int(math.Ceil(400 * step))
		if got := saveSteps(t, j); got != 400 {
			t.Errorf("%s: interval %d s (step %.2f s) gave %d steps, want 400", r.Key(), j.Checkpoint.IntervalSeconds, step, got)
		}
		j.Checkpoint.IntervalSeconds = int(math.Ceil(800 * step))
		if got := saveSteps(t, j); got != 800 {
			t.Errorf("%s: interval %d s gave %d steps, want 800", r.Key(), j.Checkpoint.IntervalSeconds, got)
		}
		// Shorter than a step: a checkpoint after every step.
		j.Checkpoint.IntervalSeconds = 1
		if step > 1 && saveSteps(t, j) != 1 {
			t.Errorf("%s: an interval under one step must checkpoint every step", r.Key())
		}
		// auto: √(2·C·M) over the step time.
		j.Checkpoint = Checkpoint{Dir: j.Checkpoint.Dir, Auto: true, MTBFSeconds: 36000, CostSeconds: 30, KeepLast: 3}
		if got, want := saveSteps(t, j), max(1, int(math.Sqrt(2*30*36000)/step)); got != want {
			t.Errorf("%s: auto gave %d steps, want %d", r.Key(), got, want)
		}
		// auto without a cost figure keeps the recipe's default steps.
		j.Checkpoint.CostSeconds = 0
		if got := saveSteps(t, j); strconv.Itoa(got) != r.Hyperparameters["save_interval_steps"] {
			t.Errorf("%s: auto without a cost gave %d steps, want the recipe's %s", r.Key(), got, r.Hyperparameters["save_interval_steps"])
		}
		j.Hyperparameters = map[string]string{"save_interval_steps": "77"}
		j.Checkpoint.CostSeconds = 30
		if got := saveSteps(t, j); got != 77 {
			t.Errorf("%s: explicit save_interval_steps 77 gave %d", r.Key(), got)
		}
	}
}

// TestPrecisionOverride: fp8 is asked for where the machine catalog says the
// profile trains in it, reaches the Megatron-Bridge launch, and is refused on
// a3-high and for launchers without a precision switch.
func TestPrecisionOverride(t *testing.T) {
	bf16, _ := Lookup(ModelLlama31, "70b", ModePretrain, "a3-mega")
	j := goldenJob(bf16)
	j.Precision = "bf16"
	s, err := Render(j)
	if err != nil || !strings.Contains(s.Body, "--compute_dtype bf16") {
		t.Fatalf("bf16 on a3-mega: %v", err)
	}
	for _, c := range []struct {
		model, size, mode, profile, precision, want string
	}{
		{ModelLlama31, "8b", ModePretrain, "a3-high", "fp8", `precision = "fp8": machine profile a3-high has no fp8 training recipe; it runs bf16`},
		{ModelLlama31, "8b", ModePretrain, "a3-high", "fp16", `precision = "fp16": precision "fp16" is not one of bf16, fp8, fp32`},
		{ModelGemma2, "9b", ModePretrain, "a4", "fp8", `runs in bf16 only; only Megatron-Bridge recipes switch precision`},
		{ModelLlama31, "8b", ModeRL, "a4", "fp8", `runs in bf16 only`},
		{ModelTinyGPT, "2m", ModePretrain, ProfileCPU, "bf16", `machine profile cpu has no bf16 training recipe; it runs fp32`},
	} {
		r, err := Lookup(c.model, c.size, c.mode, c.profile)
		if err != nil {
			t.Fatal(err)
		}
		j := goldenJob(r)
		if !r.GPU() {
			j = testCPUJob("p", "/tmp/p", 5)
		}
		j.Precision = c.precision
		if _, err := Validate(j); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with precision %s: %v, want %q", r.Key(), c.precision, err, c.want)
		}
	}
	// bf16 on a row that defaults to fp8.
	r, _ := Lookup(ModelLlama31, "8b", ModePretrain, "a3-high")
	r2, _ := Lookup(ModelLlama31, "8b", ModePretrain, "a4")
	j = goldenJob(r2)
	j.Precision = "bf16"
	if s, err := Render(j); err != nil || !strings.Contains(s.Body, "--compute_dtype bf16") {
		t.Errorf("bf16 on a4: %v", err)
	}
	if r.Precision != "bf16" {
		t.Errorf("a3-high rows are bf16, got %s", r.Precision)
	}
}

// TestCheckpointSizeAndCost: the checkpoint size is parameters × the bytes
// the optimizer keeps, and a fixed interval below the planned cost is refused.
func TestCheckpointSizeAndCost(t *testing.T) {
	r, _ := Lookup(ModelLlama31, "405b", ModePretrain, "a4")
	if got := r.CheckpointBytes(); got != 405_900_000_000*14 {
		t.Errorf("405b checkpoint %d bytes", got)
	}
	tiny, _ := Lookup(ModelTinyGPT, "2m", ModePretrain, ProfileCPU)
	// train.py's parameter count for d=192, 4 layers, 32-byte context.
	if tiny.Parameters != 1_884_288 || tiny.CheckpointBytes() != 1_884_288*12 {
		t.Errorf("tiny-gpt 2m: %d parameters, %d bytes", tiny.Parameters, tiny.CheckpointBytes())
	}
	j := goldenJob(r)
	j.Checkpoint = Checkpoint{Dir: "/lustre/c", IntervalSeconds: 30, CostSeconds: 45.5, KeepLast: 3}
	if _, err := Validate(j); err == nil || !strings.Contains(err.Error(), "checkpoint.interval_seconds = 30 is shorter than the checkpoint cost 45.5 s") {
		t.Errorf("interval under the cost: %v", err)
	}
	j.Checkpoint.IntervalSeconds = 46
	if _, err := Validate(j); err != nil {
		t.Errorf("interval over the cost: %v", err)
	}
}
