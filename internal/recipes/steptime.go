package recipes

import (
	"fmt"
	"strconv"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
)

// assumedMFU is the model FLOPs utilisation a GPU recipe's expected step
// time assumes: 40%, within what published Megatron-Core Llama runs reach
// on H100 and Blackwell (NVIDIA reports 35-55% for dense Llama 3
// pretraining). It only sizes the checkpoint interval in steps before the
// run; a real run's steps may be faster or slower by that much, and its
// checkpoints come that much earlier or later.
const assumedMFU = 0.40

// ExpectedStepSeconds is the time one optimizer step of a GPU recipe is
// expected to take on nodes VMs: the step's training FLOPs, 6 × parameters ×
// tokens (forward and backward of a dense decoder), over the GPUs' peak dense
// rate in the job's precision (catalog.PeakDenseTFLOPS) at assumedMFU.
// Tokens per step are global_batch × seq_length; for rl, the step trains on
// num_prompts_per_step × num_generations_per_prompt rollouts of at most
// seq_length tokens (rollout generation comes on top, so an rl step takes
// longer than this and its checkpoints come later than asked).
func ExpectedStepSeconds(r Recipe, hp map[string]string, precision string, nodes int) (float64, error) {
	if !r.GPU() {
		return 0, fmt.Errorf("recipe %s runs on CPU: its trainer times its own steps", r.Key())
	}
	m, err := profileMachine(r.Profile)
	if err != nil {
		return 0, err
	}
	peak, ok := catalog.PeakDenseTFLOPS(m.GPU.Type, precision)
	if !ok {
		return 0, fmt.Errorf("the catalog has no %s peak rate for %s", precision, m.GPU.Type)
	}
	num := func(k string) float64 { f, _ := strconv.ParseFloat(hp[k], 64); return f }
	seqs := num("global_batch")
	if r.Mode == ModeRL {
		seqs = num("num_prompts_per_step") * num("num_generations_per_prompt")
	}
	flops := 6 * float64(r.Parameters) * seqs * num("seq_length")
	gpus := float64(nodes * m.GPUCount())
	return flops / (gpus * peak * 1e12 * assumedMFU), nil
}

// checkpointSteps turns the job's checkpoint interval into the step count
// GPU frameworks take, and says how it was found (a comment in the
// script). An explicit save_interval_steps hyperparameter wins; auto
// without a cost estimate keeps the recipe's default steps.
func checkpointSteps(j Job, r Recipe, hp map[string]string, precision string) (steps int, why string, err error) {
	if v, ok := j.Hyperparameters["save_interval_steps"]; ok {
		return atoiMust(v), "save_interval_steps set in the job's hyperparameters", nil
	}
	c := j.Checkpoint
	seconds := float64(c.IntervalSeconds)
	what := fmt.Sprintf("interval %d s", c.IntervalSeconds)
	if c.Auto {
		if c.CostSeconds <= 0 {
			return atoiMust(hp["save_interval_steps"]), "auto, but the checkpoint storage has no bandwidth figure to estimate the cost C from: the recipe's save_interval_steps", nil
		}
		seconds = goodput.YoungDaly(c.CostSeconds, c.MTBFSeconds).Seconds()
		what = fmt.Sprintf("auto: Young/Daly √(2 × C %.1f s × M %.0f s) = %.0f s", c.CostSeconds, c.MTBFSeconds, seconds)
	}
	step, err := ExpectedStepSeconds(r, hp, precision, j.Nodes)
	if err != nil {
		return 0, "", err
	}
	steps = max(1, int(seconds/step))
	return steps, fmt.Sprintf("%s / expected step %.2f s (6·N·tokens at %.0f%% of peak %s) = %d steps", what, step, 100*assumedMFU, precision, steps), nil
}
