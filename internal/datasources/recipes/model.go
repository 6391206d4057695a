package recipes

import "github.com/hashicorp/terraform-plugin-framework/types"

type model struct {
	Model   types.String  `tfsdk:"model"`
	Size    types.String  `tfsdk:"size"`
	Mode    types.String  `tfsdk:"mode"`
	Profile types.String  `tfsdk:"profile"`
	ID      types.String  `tfsdk:"id"`
	Recipes []recipeModel `tfsdk:"recipes"`
}

type recipeModel struct {
	Key              types.String            `tfsdk:"key"`
	Model            types.String            `tfsdk:"model"`
	Size             types.String            `tfsdk:"size"`
	Mode             types.String            `tfsdk:"mode"`
	Profile          types.String            `tfsdk:"profile"`
	GPU              types.Bool              `tfsdk:"gpu"`
	Nodes            types.Int64             `tfsdk:"nodes"`
	MinNodes         types.Int64             `tfsdk:"min_nodes"`
	TensorParallel   types.Int64             `tfsdk:"tensor_parallel"`
	PipelineParallel types.Int64             `tfsdk:"pipeline_parallel"`
	ContextParallel  types.Int64             `tfsdk:"context_parallel"`
	VirtualPipeline  types.Int64             `tfsdk:"virtual_pipeline"`
	FSDP             types.Bool              `tfsdk:"fsdp"`
	Precision        types.String            `tfsdk:"precision"`
	MicroBatch       types.Int64             `tfsdk:"micro_batch"`
	GlobalBatch      types.Int64             `tfsdk:"global_batch"`
	SeqLength        types.Int64             `tfsdk:"seq_length"`
	Container        types.String            `tfsdk:"container"`
	Launcher         types.String            `tfsdk:"launcher"`
	NeedsResumeFrom  types.Bool              `tfsdk:"needs_resume_from"`
	Hyperparameters  map[string]types.String `tfsdk:"hyperparameters"`
	MaxSteps         types.Int64             `tfsdk:"max_steps"`
	Parameters       types.Int64             `tfsdk:"parameters"`
	CheckpointGiB    types.Float64           `tfsdk:"checkpoint_gib"`
	Source           types.String            `tfsdk:"source"`
}
