package recipes

import "github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"

// The GPU half of the catalog: Llama 3.1 and Gemma 2 pretraining,
// continued pretraining and SFT per machine profile, with the defaults the
// public recipes publish. Where a source gives only some fields for a
// profile, Source says which preset the rest come from.
//
// Sources (public, read 2026-12):
//   - mbH100, mbB200, mbGB200: NVIDIA Megatron-Bridge
//     scripts/performance/configs/llama/llama3_workload_base_configs.py,
//     presets LLAMA3_{8B,70B}_{PRETRAIN,SFT}_CONFIG_{H100,B200,GB200}_{BF16,FP8_CS}_V1
//     (8B: 8 GPUs GBS 128; 70B: 64 GPUs GBS 256; SFT 8B: 8 GPUs GBS 32 (GB200
//     GBS 8); SFT 70B: 32 GPUs GBS 32).
//   - Google's AI-Hypercomputer/gpu-recipes: training/a3ultra/llama3-8b/
//     megatron-bridge-pretraining-slurm/2node-FP8CS-GBS256,
//     training/a3ultra/llama3_70b/megatron-bridge-slurm/nemo2511/32gpus-fp8cs-seq8192-gbs1024,
//     training/a4/llama3-1-70b/megatron-bridge-pretraining-slurm/8node-fp8-seq8192-gbs2048,
//     training/a4/llama3-1-405b/nemo-pretraining-gke/nemo2602/16node-fp8cs-seq8192-gbs128
//     (TP8 PP8 CP1 VP2 MBS1), training/a4x/.../llama3_70b fp8_cs (16 nodes ×
//     4 GPUs, FSDP, GBS 256, MBS 2); the Slurm recipes import nvcr.io#nvidia/nemo:25.11
//     with enroot and launch with srun + pyxis.
//   - NeMo 2 recipes nemo/collections/llm/recipes/gemma2_{9b,27b}.py
//     (pretrain: 9B TP4 PP1, 27B TP8 PP2; GBS 32, MBS 2, seq 4096,
//     lr 3e-4 → 3e-5, warmup 500, bf16; full SFT (peft_scheme none): 9B TP4,
//     27B TP8 PP2, lr 5e-6, seq 2048).
//
// Precision: every profile here has FP8 silicon (H100, H200, B200, GB200),
// but Google publishes no FP8 recipe for A3 High (TCPX), so a3-high rows
// are bf16; Gemma 2 recipes are bf16 everywhere (NeMo publishes no FP8
// Gemma 2 recipe).

const (
	ModelLlama31 = "llama3.1"
	ModelGemma2  = "gemma2"

	containerNeMo2511 = "nvcr.io/nvidia/nemo:25.11"
	containerNeMo2602 = "nvcr.io/nvidia/nemo:26.02"

	// containerNeMoRL is NVIDIA's NeMo-RL release container (NGC nemo-rl).
	containerNeMoRL = "nvcr.io/nvidia/nemo-rl:v0.4.0"

	launcherMegatronBridge = "megatron-bridge"
	launcherNeMo2          = "nemo2"
	// launcherNeMoRL: NeMo-RL's GRPO on its Megatron backend, driven by Ray
	// (one Ray node per VM; the driver places policy and vLLM generation
	// workers on every GPU).
	launcherNeMoRL = "nemo-rl"
)

const (
	srcMBH100  = "Megatron-Bridge llama3_workload_base_configs.py H100 preset"
	srcMBB200  = "Megatron-Bridge llama3_workload_base_configs.py B200 preset"
	srcMBGB200 = "Megatron-Bridge llama3_workload_base_configs.py GB200 preset"
	srcGemma2  = "NeMo 2 recipe gemma2 pretrain_recipe/finetune_recipe defaults"
	srcRL8B    = "NeMo-RL examples/configs/grpo_math_8B_megatron.yaml (GRPO, Llama-3.1-8B-Instruct, 1 node × 8 GPUs)"
	srcRL70B   = "NeMo-RL examples/configs/grpo_math_70B_megatron.yaml (GRPO, Llama-3.3-70B-Instruct: the Llama 3.1 70B architecture, 8 nodes × 8 GPUs)"
)

// gpuRow is one published pretraining configuration; continued
// pretraining reuses it from a checkpoint, SFT rows are listed apart.
type gpuRow struct {
	model, size, profile, mode string
	nodes                      int
	tp, pp, cp, vp             int
	fsdp                       bool
	precision                  string
	mbs, gbs, seq              int
	container, source          string
}

func gpuRows() []gpuRow {
	return []gpuRow{
		// Llama 3.1 8B pretraining.
		{ModelLlama31, "8b", "a3-high", ModePretrain, 1, 1, 1, 2, 0, false, "bf16", 1, 128, 8192, containerNeMo2511, srcMBH100 + " (BF16: CP2)"},
		{ModelLlama31, "8b", "a3-mega", ModePretrain, 1, 1, 1, 1, 0, false, "fp8", 1, 128, 8192, containerNeMo2511, srcMBH100 + " (FP8_CS)"},
		{ModelLlama31, "8b", "a3-ultra", ModePretrain, 2, 1, 1, 1, 0, false, "fp8", 1, 256, 8192, containerNeMo2511, "gpu-recipes a3ultra llama3-8b 2node-FP8CS-GBS256; parallelism from the " + srcMBH100},
		{ModelLlama31, "8b", "a4", ModePretrain, 1, 1, 1, 1, 0, false, "fp8", 2, 128, 8192, containerNeMo2511, srcMBB200 + " (FP8_CS)"},
		{ModelLlama31, "8b", "a4x", ModePretrain, 2, 1, 1, 1, 0, false, "fp8", 2, 128, 8192, containerNeMo2511, srcMBGB200 + " (FP8_CS, 8 GPUs)"},
		// Llama 3.1 70B pretraining.
		{ModelLlama31, "70b", "a3-high", ModePretrain, 8, 4, 4, 2, 5, false, "bf16", 1, 256, 8192, containerNeMo2511, srcMBH100 + " (BF16, 64 GPUs)"},
		{ModelLlama31, "70b", "a3-mega", ModePretrain, 8, 4, 8, 1, 5, false, "fp8", 1, 256, 8192, containerNeMo2511, srcMBH100 + " (FP8_CS, 64 GPUs)"},
		{ModelLlama31, "70b", "a3-ultra", ModePretrain, 4, 4, 8, 1, 5, false, "fp8", 1, 1024, 8192, containerNeMo2511, "gpu-recipes a3ultra llama3_70b megatron-bridge-slurm 32gpus-fp8cs-seq8192-gbs1024; parallelism from the " + srcMBH100 + " (FP8_CS)"},
		{ModelLlama31, "70b", "a4", ModePretrain, 8, 1, 1, 1, 0, true, "fp8", 1, 2048, 8192, containerNeMo2511, "gpu-recipes a4 llama3-1-70b megatron-bridge-pretraining-slurm 8node-fp8-seq8192-gbs2048; parallelism from the " + srcMBB200 + " (FP8_CS: Megatron FSDP)"},
		{ModelLlama31, "70b", "a4x", ModePretrain, 16, 1, 1, 1, 0, true, "fp8", 2, 256, 8192, containerNeMo2511, "gpu-recipes a4x llama3_70b fp8_cs (16 nodes, FSDP, GBS 256, MBS 2) = " + srcMBGB200 + " (FP8_CS)"},
		// Llama 3.1 405B pretraining: A4 is published; the other profiles
		// take its parallelism (TP8 PP8 VP2 fits 128 GPUs of 80-186 GB).
		{ModelLlama31, "405b", "a3-high", ModePretrain, 16, 8, 8, 1, 2, false, "bf16", 1, 128, 8192, containerNeMo2602, "parallelism of gpu-recipes a4 llama3-1-405b 16node-fp8cs-seq8192-gbs128, in bf16"},
		{ModelLlama31, "405b", "a3-mega", ModePretrain, 16, 8, 8, 1, 2, false, "fp8", 1, 128, 8192, containerNeMo2602, "parallelism of gpu-recipes a4 llama3-1-405b 16node-fp8cs-seq8192-gbs128"},
		{ModelLlama31, "405b", "a3-ultra", ModePretrain, 16, 8, 8, 1, 2, false, "fp8", 1, 128, 8192, containerNeMo2602, "parallelism of gpu-recipes a4 llama3-1-405b 16node-fp8cs-seq8192-gbs128"},
		{ModelLlama31, "405b", "a4", ModePretrain, 16, 8, 8, 1, 2, false, "fp8", 1, 128, 8192, containerNeMo2602, "gpu-recipes a4 llama3-1-405b nemo2602 16node-fp8cs-seq8192-gbs128 (TP8 PP8 CP1 VP2 MBS1)"},
		{ModelLlama31, "405b", "a4x", ModePretrain, 32, 8, 8, 1, 2, false, "fp8", 1, 128, 8192, containerNeMo2602, "parallelism of gpu-recipes a4 llama3-1-405b 16node-fp8cs-seq8192-gbs128 on 128 GB200 (32 VMs of 4)"},
		// Llama 3.1 SFT (full fine-tuning).
		{ModelLlama31, "8b", "a3-high", ModeSFT, 1, 1, 1, 1, 0, false, "bf16", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 8B)"},
		{ModelLlama31, "8b", "a3-mega", ModeSFT, 1, 1, 1, 1, 0, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 8B, FP8_CS)"},
		{ModelLlama31, "8b", "a3-ultra", ModeSFT, 1, 1, 1, 1, 0, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 8B, FP8_CS)"},
		{ModelLlama31, "8b", "a4", ModeSFT, 1, 1, 1, 1, 0, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 8B; no B200 SFT preset)"},
		{ModelLlama31, "8b", "a4x", ModeSFT, 2, 1, 1, 1, 0, false, "fp8", 1, 8, 4096, containerNeMo2511, srcMBGB200 + " (SFT 8B, GBS 8)"},
		{ModelLlama31, "70b", "a3-high", ModeSFT, 4, 4, 4, 1, 5, false, "bf16", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 70B, 32 GPUs)"},
		{ModelLlama31, "70b", "a3-mega", ModeSFT, 4, 4, 4, 1, 5, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 70B, 32 GPUs)"},
		{ModelLlama31, "70b", "a3-ultra", ModeSFT, 4, 4, 4, 1, 5, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBH100 + " (SFT 70B, 32 GPUs)"},
		{ModelLlama31, "70b", "a4", ModeSFT, 4, 2, 4, 1, 5, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBGB200 + " parallelism (SFT 70B TP2 PP4 VP5) on 32 B200"},
		{ModelLlama31, "70b", "a4x", ModeSFT, 8, 2, 4, 1, 5, false, "fp8", 1, 32, 4096, containerNeMo2511, srcMBGB200 + " (SFT 70B, 32 GPUs)"},
		// Gemma 2 pretraining and full SFT: NeMo's 8 GPUs are two A4X VMs.
		{ModelGemma2, "9b", "a3-high", ModePretrain, 1, 4, 1, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (9B)"},
		{ModelGemma2, "9b", "a3-mega", ModePretrain, 1, 4, 1, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (9B)"},
		{ModelGemma2, "9b", "a3-ultra", ModePretrain, 1, 4, 1, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (9B)"},
		{ModelGemma2, "9b", "a4", ModePretrain, 1, 4, 1, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (9B)"},
		{ModelGemma2, "9b", "a4x", ModePretrain, 2, 4, 1, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (9B)"},
		{ModelGemma2, "27b", "a3-high", ModePretrain, 2, 8, 2, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (27B)"},
		{ModelGemma2, "27b", "a3-mega", ModePretrain, 2, 8, 2, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (27B)"},
		{ModelGemma2, "27b", "a3-ultra", ModePretrain, 2, 8, 2, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (27B)"},
		{ModelGemma2, "27b", "a4", ModePretrain, 2, 8, 2, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (27B)"},
		{ModelGemma2, "27b", "a4x", ModePretrain, 4, 8, 2, 1, 0, false, "bf16", 2, 32, 4096, containerNeMo2511, srcGemma2 + " (27B)"},
		{ModelGemma2, "9b", "a3-mega", ModeSFT, 1, 4, 1, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (9B full SFT: TP4)"},
		{ModelGemma2, "9b", "a3-ultra", ModeSFT, 1, 4, 1, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (9B full SFT: TP4)"},
		{ModelGemma2, "9b", "a4", ModeSFT, 1, 4, 1, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (9B full SFT: TP4)"},
		{ModelGemma2, "27b", "a3-mega", ModeSFT, 2, 8, 2, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (27B full SFT: TP8 PP2)"},
		{ModelGemma2, "27b", "a3-ultra", ModeSFT, 2, 8, 2, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (27B full SFT: TP8 PP2)"},
		{ModelGemma2, "27b", "a4", ModeSFT, 2, 8, 2, 1, 0, false, "bf16", 1, 32, 2048, containerNeMo2511, srcGemma2 + " (27B full SFT: TP8 PP2)"},
		// Llama 3.1 RL (GRPO, NeMo-RL Megatron backend, bf16: NeMo-RL's
		// Llama recipes train in bf16). The same 8 and 64 GPUs on every
		// profile; A4X VMs hold 4 GPUs, so twice the VMs. NeMo-RL publishes
		// no GRPO recipe for Llama 3.1 405B or Gemma 2, so the catalog has
		// no rl rows for them (Lookup lists the modes they have).
		{ModelLlama31, "8b", "a3-high", ModeRL, 1, 1, 2, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL8B},
		{ModelLlama31, "8b", "a3-mega", ModeRL, 1, 1, 2, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL8B},
		{ModelLlama31, "8b", "a3-ultra", ModeRL, 1, 1, 2, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL8B},
		{ModelLlama31, "8b", "a4", ModeRL, 1, 1, 2, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL8B},
		{ModelLlama31, "8b", "a4x", ModeRL, 2, 1, 2, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL8B + " on 2 A4X VMs"},
		{ModelLlama31, "70b", "a3-high", ModeRL, 8, 4, 4, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL70B},
		{ModelLlama31, "70b", "a3-mega", ModeRL, 8, 4, 4, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL70B},
		{ModelLlama31, "70b", "a3-ultra", ModeRL, 8, 4, 4, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL70B},
		{ModelLlama31, "70b", "a4", ModeRL, 8, 4, 4, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL70B},
		{ModelLlama31, "70b", "a4x", ModeRL, 16, 4, 4, 1, 0, false, "bf16", 1, 512, 4096, containerNeMoRL, srcRL70B + " on 16 A4X VMs"},
	}
}

// gpuHyperparameters are the optimizer defaults of the source recipes:
// Megatron-Bridge Llama 3 pretraining (lr 3e-4 → 3e-5, warmup 2000) and
// NeMo Gemma 2 (3e-4 → 3e-5, warmup 500); full SFT at NeMo's finetune
// rate 5e-6; continued pretraining at a third of the pretraining rate with
// a short warmup, since it starts from trained weights.
func gpuHyperparameters(row gpuRow, mode string) map[string]string {
	hp := map[string]string{
		"micro_batch":         itoa(row.mbs),
		"global_batch":        itoa(row.gbs),
		"seq_length":          itoa(row.seq),
		"learning_rate":       "0.0003",
		"min_learning_rate":   "0.00003",
		"warmup_steps":        "2000",
		"save_interval_steps": "500",
	}
	if row.model == ModelGemma2 {
		hp["warmup_steps"] = "500"
	}
	switch mode {
	case ModeContinuedPretrain:
		hp["learning_rate"], hp["warmup_steps"] = "0.0001", "100"
	case ModeSFT:
		hp["learning_rate"], hp["min_learning_rate"], hp["warmup_steps"] = "0.000005", "0", "50"
	case ModeRL:
		// NeMo-RL grpo_math_{8B,70B}_megatron.yaml: Adam 3e-7 → 3e-8
		// (constant after 13 warmup iterations), 64 prompts × 32
		// generations per step, a checkpoint every 10 steps (save_period).
		hp["learning_rate"], hp["min_learning_rate"], hp["warmup_steps"] = "0.0000003", "0.00000003", "13"
		hp["save_interval_steps"] = "10"
		hp["num_prompts_per_step"], hp["num_generations_per_prompt"] = "64", "32"
	}
	return hp
}

func gpuRecipes() []Recipe {
	var out []Recipe
	for _, row := range gpuRows() {
		perNode, err := catalog.ProfileGPUsPerNode(row.profile)
		if err != nil {
			panic("recipes: " + err.Error())
		}
		// The fewest nodes that hold one model replica.
		minNodes := (row.tp*row.pp*row.cp + perNode - 1) / perNode
		modes := []string{row.mode}
		if row.mode == ModePretrain {
			modes = append(modes, ModeContinuedPretrain)
		}
		for _, mode := range modes {
			launcher := launcherMegatronBridge
			switch {
			case mode == ModeRL:
				launcher = launcherNeMoRL
			case row.model == ModelGemma2:
				launcher = launcherNeMo2
			}
			out = append(out, Recipe{
				Model: row.model, Size: row.size, Mode: mode, Profile: row.profile,
				Nodes: row.nodes, MinNodes: minNodes,
				TensorParallel: row.tp, PipelineParallel: row.pp, ContextParallel: row.cp,
				VirtualPipeline: row.vp, FSDP: row.fsdp,
				Precision: row.precision, MicroBatch: row.mbs, GlobalBatch: row.gbs, SeqLength: row.seq,
				Container: row.container, Launcher: launcher,
				NeedsResumeFrom:             mode == ModeContinuedPretrain,
				Hyperparameters:             gpuHyperparameters(row, mode),
				Parameters:                  gpuParameterCount(row.model, row.size),
				CheckpointBytesPerParameter: megatronCheckpointBytesPerParameter,
				MaxSteps:                    defaultMaxSteps(true, mode),
				Source:                      row.source,
			})
		}
	}
	return out
}
