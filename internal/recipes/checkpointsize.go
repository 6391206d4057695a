package recipes

import "fmt"

// What a recipe's checkpoint weighs and how long its run is by default: the
// checkpoint size is what a job's checkpoint cost C (size / the storage's
// write bandwidth) is derived from at plan.

// gpuParameters are the models' published parameter counts (model cards:
// Llama 3.1 8B 8.03 B, 70B 70.6 B, 405B 405.9 B; Gemma 2 9B 9.24 B, 27B
// 27.2 B).
var gpuParameters = map[string]map[string]int64{
	ModelLlama31: {"8b": 8_030_000_000, "70b": 70_600_000_000, "405b": 405_900_000_000},
	ModelGemma2:  {"9b": 9_240_000_000, "27b": 27_200_000_000},
}

// Bytes a full checkpoint stores per parameter.
const (
	// Megatron-Core's distributed optimizer (Megatron-Bridge, NeMo 2 and
	// NeMo-RL's Megatron backend all use it): bf16 weights (2) plus the fp32
	// main weights (4) and Adam's two fp32 moments (4 + 4). FP8 recipes keep
	// the same: FP8 is a compute format, the weights stay bf16.
	megatronCheckpointBytesPerParameter = 14
	// The CPU trainer: fp32 weights (4) and AdamW's two fp32 moments (4 + 4).
	cpuCheckpointBytesPerParameter = 12
)

// tinyGPTParameters counts the CPU model's parameters exactly as train.py
// builds it at the recipe's sequence length: byte and position embeddings,
// per block two LayerNorms (2d each), qkv (3d²+3d), the output projection
// (d²+d) and the MLP (4d²+4d, 4d²+d), the final LayerNorm and an unbiased
// LM head.
func tinyGPTParameters(a Architecture, seq int) int64 {
	d, l := int64(a.DModel), int64(a.Layers)
	v := int64(a.Vocab)
	return v*d + int64(seq)*d + l*(12*d*d+13*d) + 2*d + v*d
}

// CheckpointBytes is the size of one full checkpoint of the recipe.
func (r Recipe) CheckpointBytes() int64 {
	return r.Parameters * int64(r.CheckpointBytesPerParameter)
}

// CheckpointGiB is CheckpointBytes in GiB.
func (r Recipe) CheckpointGiB() float64 { return float64(r.CheckpointBytes()) / (1 << 30) }

func gpuParameterCount(model, size string) int64 {
	n, ok := gpuParameters[model][size]
	if !ok {
		panic(fmt.Sprintf("recipes: no parameter count for %s %s", model, size))
	}
	return n
}

// Default training lengths, from the sources' max_steps:
//   - pretraining: NeMo 2 / Megatron-Bridge pretrain recipes train 1,168,251
//     steps (train_iters / trainer.max_steps); continued pretraining has no
//     recipe of its own and keeps it;
//   - SFT: NeMo 2's default_finetune_trainer, 1,000 steps;
//   - RL: NeMo-RL grpo_math_*_megatron.yaml, grpo.max_num_steps 1,000,000
//     (the run ends when its prompts are used up);
//   - the CPU recipe: 200 steps of pretraining, 100 of fine-tuning (about a
//     minute on one core per rank).
func defaultMaxSteps(gpu bool, mode string) int {
	if !gpu {
		if mode == ModePretrain {
			return 200
		}
		return 100
	}
	switch mode {
	case ModeSFT:
		return 1000
	case ModeRL:
		return 1_000_000
	}
	return 1_168_251
}
