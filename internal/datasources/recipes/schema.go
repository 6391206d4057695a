package recipes

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	filter := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	}
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	boolean := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The training recipe catalog: Llama 3.1 (8B, 70B, 405B) and Gemma 2 (9B, 27B) " +
			"pretraining, continued pretraining and SFT per GPU machine profile with the defaults the public " +
			"GPU recipes publish (Google's gpu-recipes, NVIDIA Megatron-Bridge and NeMo), and the `tiny-gpt` CPU " +
			"recipe that really trains with PyTorch on CPU partitions. Filters are optional and combine; an " +
			"unknown value is an error that lists the valid ones. No API call is made.",
		Attributes: map[string]schema.Attribute{
			"model":   filter("Only recipes of this model (`llama3.1`, `gemma2`, `tiny-gpt`)."),
			"size":    filter("Only recipes of this size (`8b`, `70b`, `405b`, `9b`, `27b`, `2m`, `8m`)."),
			"mode":    filter("Only recipes of this mode (`pretrain`, `continued_pretrain`, `sft`, `rl`)."),
			"profile": filter("Only recipes for this machine profile: a GPU machine's `profile` as `hypercompute_machine_type` reports it (`a3-high`, `a3-mega`, `a3-ultra`, `a4`, `a4x`), or `cpu` for any machine without GPUs."),
			"id":      str("The filters, as `model/size/mode@profile` (empty parts are unfiltered)."),
			"recipes": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching recipes, sorted by `key`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":               str("`model/size/mode@profile`."),
					"model":             str("Model name."),
					"size":              str("Model size."),
					"mode":              str("Training mode."),
					"profile":           str("Machine profile the recipe is tuned for."),
					"gpu":               boolean("Whether the recipe runs on GPUs."),
					"nodes":             num("Nodes the published recipe uses (the default of a job)."),
					"min_nodes":         num("Fewest nodes that hold one model replica."),
					"tensor_parallel":   num("Tensor parallelism (0 on CPU)."),
					"pipeline_parallel": num("Pipeline parallelism (0 on CPU)."),
					"context_parallel":  num("Context parallelism (0 on CPU)."),
					"virtual_pipeline":  num("Interleaved pipeline stages per rank (0: none)."),
					"fsdp":              boolean("Whether Megatron FSDP shards the parameters over the data-parallel ranks."),
					"precision":         str("`bf16`, `fp8` (FP8 current scaling), or `fp32` on CPU."),
					"micro_batch":       num("Micro batch size per rank."),
					"global_batch":      num("Global batch size (0 on CPU: micro batch × ranks)."),
					"seq_length":        num("Sequence length in tokens (bytes for `tiny-gpt`)."),
					"container":         str("Container image, imported with enroot and run with pyxis (null on CPU)."),
					"launcher":          str("What the batch script launches (`megatron-bridge`, `nemo2`, `nemo-rl` (GRPO on Ray), or the CPU trainer)."),
					"max_steps":         num("Default training length in optimizer steps (a job's `overrides.max_steps` when unset)."),
					"parameters":        num("The model's parameter count."),
					"checkpoint_gib":    schema.Float64Attribute{Computed: true, MarkdownDescription: "Size of one full checkpoint in GiB: parameters × the bytes of weights and optimizer state kept per parameter (14 for Megatron's distributed optimizer, 12 for the CPU trainer's fp32 AdamW); the checkpoint cost C is this over the storage's write bandwidth."},
					"needs_resume_from": boolean("Whether a job must set `checkpoint.resume_from` (continued pretraining)."),
					"hyperparameters": schema.MapAttribute{
						Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Default hyperparameters; a job may override exactly these keys.",
					},
					"source": str("Where the defaults are published."),
				}},
			},
		},
	}
}
