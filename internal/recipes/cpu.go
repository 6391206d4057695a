package recipes

// ModelTinyGPT is the CPU recipe's model: a small decoder-only transformer
// language model trained at byte level by the embedded trainer
// (cputrain/train.py), so the whole recipe flow really trains on the local
// cloud and in CI.
const ModelTinyGPT = "tiny-gpt"

// tinyGPTSizes: parameter counts are ≈ 12·layers·d² for the blocks plus the
// byte embeddings and LM head (256·d each), so "2m" is 1.9 M and "8m"
// 8.0 M parameters (the trainer logs the exact count).
var tinyGPTSizes = map[string]Architecture{
	"2m": {Vocab: 256, DModel: 192, Layers: 4, Heads: 4},
	"8m": {Vocab: 256, DModel: 256, Layers: 10, Heads: 8},
}

// cpuHyperparameters are tuned so the loss falls clearly within a few
// dozen steps on one CPU core per rank (byte-level loss starts at ln 256 ≈
// 5.5). Debian's python3-torch uses the generic reference BLAS (≈ 6 GFLOP/s
// per core), so a step of 4×32 bytes on "2m" costs ≈ 0.35 s of CPU: a hundred
// steps take well under a minute. Fine-tuning modes start from trained
// weights and use a lower rate.
func cpuHyperparameters(mode string) map[string]string {
	hp := map[string]string{
		"learning_rate": "0.003",
		"warmup_steps":  "10",
		"weight_decay":  "0.01",
		"grad_clip":     "1.0",
		"micro_batch":   "4",
		"seq_length":    "32",
		"seed":          "1234",
		"log_every":     "10",
	}
	if mode != ModePretrain {
		hp["learning_rate"] = "0.001"
	}
	return hp
}

// cpuNoRL is why the CPU recipe has no rl mode. RL (GRPO, PPO) improves a
// policy that already writes text a reward can judge, sampling many
// rollouts per prompt with a generation engine. A byte-level 2M-parameter
// model trained for a minute writes no such text, so a REINFORCE loop on it
// would only show the loop turning and prove nothing about the rl recipes,
// whose generation workers, reward and weight refit are NeMo-RL's. So
// tiny-gpt stops at pretraining and fine-tuning.
const cpuNoRL = "The CPU recipe (tiny-gpt) has no RL mode: reinforcement learning needs a policy that already writes text a reward can judge and a generation engine, which a byte-level model trained on a CPU for a minute is not; run an rl recipe (llama3.1 8b or 70b) on a GPU partition"

func cpuRecipes() []Recipe {
	var out []Recipe
	for _, size := range []string{"2m", "8m"} {
		for _, mode := range []string{ModePretrain, ModeContinuedPretrain, ModeSFT} {
			arch := tinyGPTSizes[size]
			hp := cpuHyperparameters(mode)
			out = append(out, Recipe{
				Model: ModelTinyGPT, Size: size, Mode: mode, Profile: ProfileCPU,
				Nodes: 2, MinNodes: 1,
				Precision:                   "fp32",
				MicroBatch:                  atoiMust(hp["micro_batch"]),
				GlobalBatch:                 0, // micro_batch × ranks: pure data parallelism
				SeqLength:                   atoiMust(hp["seq_length"]),
				Launcher:                    "srun + /usr/bin/python3 train.py (torch.distributed gloo, DistributedDataParallel)",
				NeedsResumeFrom:             mode == ModeContinuedPretrain,
				Hyperparameters:             hp,
				Architecture:                &arch,
				Parameters:                  tinyGPTParameters(arch, atoiMust(hp["seq_length"])),
				CheckpointBytesPerParameter: cpuCheckpointBytesPerParameter,
				MaxSteps:                    defaultMaxSteps(false, mode),
				Source:                      "hypercompute's own CPU recipe (internal/recipes/cputrain/train.py); corpora generated deterministically per mode",
			})
		}
	}
	return out
}
