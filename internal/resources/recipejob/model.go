package recipejob

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// model is the resource's state. recipe, overrides and checkpoint are
// objects because checkpoint is partly computed at plan (its directory
// defaults to the cluster's storage) and objects may then be unknown.
type model struct {
	ID             types.String `tfsdk:"id"`
	Cluster        types.String `tfsdk:"cluster"`
	Name           types.String `tfsdk:"name"`
	Partition      types.String `tfsdk:"partition"`
	Recipe         types.Object `tfsdk:"recipe"`
	Nodes          types.Int64  `tfsdk:"nodes"`
	Overrides      types.Object `tfsdk:"overrides"`
	Checkpoint     types.Object `tfsdk:"checkpoint"`
	RestartPolicy  types.Object `tfsdk:"restart_policy"`
	TensorBoardDir types.String `tfsdk:"tensorboard_dir"`
	ExportPath     types.String `tfsdk:"export_path"`
	TimeLimit      types.String `tfsdk:"time_limit"`
	WaitFor        types.String `tfsdk:"wait_for"`

	Generation         types.String  `tfsdk:"generation"`
	RunDir             types.String  `tfsdk:"run_dir"`
	JobID              types.Int64   `tfsdk:"job_id"`
	State              types.String  `tfsdk:"state"`
	StartTime          types.String  `tfsdk:"start_time"`
	EndTime            types.String  `tfsdk:"end_time"`
	LogPath            types.String  `tfsdk:"log_path"`
	Step               types.Int64   `tfsdk:"step"`
	Checkpoints        types.Int64   `tfsdk:"checkpoints"`
	LastCheckpointStep types.Int64   `tfsdk:"last_checkpoint_step"`
	LastCheckpointTime types.String  `tfsdk:"last_checkpoint_time"`
	FirstLoss          types.Float64 `tfsdk:"first_loss"`
	LastLoss           types.Float64 `tfsdk:"last_loss"`
	MFU                types.Float64 `tfsdk:"mfu"`
	CheckpointInterval types.String  `tfsdk:"checkpoint_interval"`
	TimeLost           types.String  `tfsdk:"time_lost"`
	Restarts           types.Int64   `tfsdk:"restarts"`
	AutoRestarts       types.Int64   `tfsdk:"auto_restarts"`
	LastRestartCause   types.String  `tfsdk:"last_restart_cause"`

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type recipeModel struct {
	Model  types.String `tfsdk:"model"`
	Mode   types.String `tfsdk:"mode"`
	Size   types.String `tfsdk:"size"`
	Custom types.Object `tfsdk:"custom"`
}

// customModel is recipe.custom: the user's own program.
type customModel struct {
	Command        types.String  `tfsdk:"command"`
	Script         types.String  `tfsdk:"script"`
	GPUsPerNode    types.Int64   `tfsdk:"gpus_per_node"`
	Environment    types.Map     `tfsdk:"environment"`
	ContainerImage types.String  `tfsdk:"container_image"`
	FLOPsPerStep   types.Float64 `tfsdk:"flops_per_step"`
}

type overridesModel struct {
	MaxSteps        types.Int64  `tfsdk:"max_steps"`
	Hyperparameters types.Map    `tfsdk:"hyperparameters"`
	ContainerImage  types.String `tfsdk:"container_image"`
	Precision       types.String `tfsdk:"precision"`
	Env             types.Map    `tfsdk:"env"`
}

type restartPolicyModel struct {
	MaxRestarts types.Int64  `tfsdk:"max_restarts"`
	Backoff     types.String `tfsdk:"backoff"`
}

type checkpointModel struct {
	Directory  types.String `tfsdk:"directory"`
	Interval   types.String `tfsdk:"interval"`
	KeepLast   types.Int64  `tfsdk:"keep_last"`
	ResumeFrom types.String `tfsdk:"resume_from"`
}

var (
	customTypes = map[string]attr.Type{
		"command": types.StringType, "script": types.StringType, "gpus_per_node": types.Int64Type,
		"environment": types.MapType{ElemType: types.StringType}, "container_image": types.StringType, "flops_per_step": types.Float64Type,
	}
	recipeTypes = map[string]attr.Type{"model": types.StringType, "mode": types.StringType, "size": types.StringType,
		"custom": types.ObjectType{AttrTypes: customTypes}}
	overridesTypes = map[string]attr.Type{
		"max_steps": types.Int64Type, "hyperparameters": types.MapType{ElemType: types.StringType},
		"container_image": types.StringType, "precision": types.StringType, "env": types.MapType{ElemType: types.StringType},
	}
	restartPolicyTypes = map[string]attr.Type{"max_restarts": types.Int64Type, "backoff": types.StringType}
	checkpointTypes    = map[string]attr.Type{
		"directory": types.StringType, "interval": types.StringType, "keep_last": types.Int64Type, "resume_from": types.StringType,
	}
)

// computedAttrs are the attributes the controller's report fills.
var computedAttrs = []string{"job_id", "state", "start_time", "end_time", "log_path", "step", "checkpoints",
	"last_checkpoint_step", "last_checkpoint_time", "first_loss", "last_loss", "mfu", "checkpoint_interval", "time_lost", "restarts",
	"auto_restarts", "last_restart_cause"}
