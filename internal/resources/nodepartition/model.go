package nodepartition

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// model is the resource's Terraform data. Nested blocks stay types.Object so plan-time code can
// tell null (defaulted) from unknown from set.
type model struct {
	ID                  types.String `tfsdk:"id"`
	Cluster             types.String `tfsdk:"cluster"`
	Name                types.String `tfsdk:"name"`
	MachineType         types.String `tfsdk:"machine_type"`
	Zone                types.String `tfsdk:"zone"`
	StaticNodeCount     types.Int64  `tfsdk:"static_node_count"`
	MaxDynamicNodeCount types.Int64  `tfsdk:"max_dynamic_node_count"`
	Provisioning        types.Object `tfsdk:"provisioning"`
	Placement           types.Object `tfsdk:"placement"`
	BootDisk            types.Object `tfsdk:"boot_disk"`
	LocalSSDCount       types.Int64  `tfsdk:"local_ssd_count"`
	Image               types.String `tfsdk:"image"`
	StartupScript       types.String `tfsdk:"startup_script"`
	Storage             types.List   `tfsdk:"storage"`
	Labels              types.Map    `tfsdk:"labels"`
	EffectiveLabels     types.Map    `tfsdk:"effective_labels"`
	Slurm               types.Object `tfsdk:"slurm"`
	ForceScaleDown      types.Bool   `tfsdk:"force_scale_down"`
	DrainTimeout        types.String `tfsdk:"drain_timeout"`
	DrainTimeoutAction  types.String `tfsdk:"drain_timeout_action"`
	AllowPartial        types.Bool   `tfsdk:"allow_partial"`
	WaitForNodes        types.Bool   `tfsdk:"wait_for_nodes"`
	// ClusterNodeConfigHash and RollingUpdate: roll.go.
	ClusterNodeConfigHash types.String `tfsdk:"cluster_node_config_hash"`
	RollingUpdate         types.Object `tfsdk:"rolling_update"`

	NodeNamePrefix   types.String `tfsdk:"node_name_prefix"`
	StaticNodeNames  types.String `tfsdk:"static_node_names"`
	DynamicNodeNames types.String `tfsdk:"dynamic_node_names"`
	InstanceTemplate types.String `tfsdk:"instance_template"`
	PlacementPolicy  types.String `tfsdk:"placement_policy"`
	NodesTotal       types.Int64  `tfsdk:"nodes_total"`
	NodesRunning     types.Int64  `tfsdk:"nodes_running"`
	NodeNames        types.String `tfsdk:"node_names"`
	NodesFailed      types.List   `tfsdk:"nodes_failed"`

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type provisioningModel struct {
	Model             types.String `tfsdk:"model"`
	Reservation       types.String `tfsdk:"reservation"`
	FutureReservation types.String `tfsdk:"future_reservation"`
	MaxRunDuration    types.String `tfsdk:"max_run_duration"`
	TerminationAction types.String `tfsdk:"termination_action"`
}

type placementModel struct {
	Compact types.Bool `tfsdk:"compact"`
}

type bootDiskModel struct {
	SizeGB types.Int64  `tfsdk:"size_gb"`
	Type   types.String `tfsdk:"type"`
}

type slurmModel struct {
	Default       types.Bool   `tfsdk:"default"`
	Exclusive     types.Bool   `tfsdk:"exclusive"`
	MaxTime       types.String `tfsdk:"max_time"`
	ResumeTimeout types.Int64  `tfsdk:"resume_timeout"`
	SuspendTime   types.Int64  `tfsdk:"suspend_time"`
	RetryAfter    types.Int64  `tfsdk:"resume_retry_after"`
	Features      types.List   `tfsdk:"features"`
	Extra         types.Map    `tfsdk:"extra"`
	// Partition and Weight: the Slurm partition the node set joins and its nodes' weight (nodesets.go).
	Partition types.String `tfsdk:"partition"`
	Weight    types.Int64  `tfsdk:"weight"`
}

var (
	provisioningAttrTypes = map[string]attr.Type{
		"model": types.StringType, "reservation": types.StringType, "future_reservation": types.StringType,
		"max_run_duration": types.StringType, "termination_action": types.StringType,
	}
	placementAttrTypes = map[string]attr.Type{"compact": types.BoolType}
	bootDiskAttrTypes  = map[string]attr.Type{"size_gb": types.Int64Type, "type": types.StringType}
	slurmAttrTypes     = map[string]attr.Type{
		"default": types.BoolType, "exclusive": types.BoolType, "max_time": types.StringType,
		"resume_timeout": types.Int64Type, "suspend_time": types.Int64Type, "resume_retry_after": types.Int64Type,
		"features": types.ListType{ElemType: types.StringType}, "extra": types.MapType{ElemType: types.StringType},
		"partition": types.StringType, "weight": types.Int64Type,
	}
)
