package goodputplan

import "github.com/hashicorp/terraform-plugin-framework/types"

type model struct {
	// Inputs.
	MachineType              types.String  `tfsdk:"machine_type"`
	Nodes                    types.Int64   `tfsdk:"nodes"`
	Spares                   types.Int64   `tfsdk:"spares"`
	JobLengthHours           types.Float64 `tfsdk:"job_length_hours"`
	NodeMTBFHours            types.Float64 `tfsdk:"node_mtbf_hours"`
	Recovery                 types.String  `tfsdk:"recovery"`
	DetectMinutes            types.Float64 `tfsdk:"detect_minutes"`
	SwapMinutes              types.Float64 `tfsdk:"swap_minutes"`
	RepairMinutes            types.Float64 `tfsdk:"repair_minutes"`
	RestartMinutes           types.Float64 `tfsdk:"restart_minutes"`
	CheckpointCostSeconds    types.Float64 `tfsdk:"checkpoint_cost_seconds"`
	AsyncPersistSeconds      types.Float64 `tfsdk:"async_persist_seconds"`
	CheckpointStorage        types.String  `tfsdk:"checkpoint_storage"`
	CheckpointSizeGiB        types.Float64 `tfsdk:"checkpoint_size_gib"`
	LustreThroughput         types.Int64   `tfsdk:"lustre_throughput"`
	LustreCapacityGiB        types.Int64   `tfsdk:"lustre_capacity_gib"`
	AsyncCheckpoints         types.Bool    `tfsdk:"async_checkpoints"`
	CheckpointIntervalMinute types.Float64 `tfsdk:"checkpoint_interval_minutes"`
	MaxSpares                types.Int64   `tfsdk:"max_spares"`

	// Outputs.
	ID                     types.String  `tfsdk:"id"`
	ReliabilitySource      types.String  `tfsdk:"reliability_source"`
	JobMTBFHours           types.Float64 `tfsdk:"job_mtbf_hours"`
	PauseSeconds           types.Float64 `tfsdk:"pause_seconds"`
	PersistSeconds         types.Float64 `tfsdk:"persist_seconds"`
	OptimalIntervalMinutes types.Float64 `tfsdk:"optimal_interval_minutes"`
	ExpectedInterruptions  types.Float64 `tfsdk:"expected_interruptions"`
	Goodput                types.Float64 `tfsdk:"goodput"`
	LostCheckpointingHours types.Float64 `tfsdk:"lost_checkpointing_hours"`
	LostReworkHours        types.Float64 `tfsdk:"lost_rework_hours"`
	LostRecoveryHours      types.Float64 `tfsdk:"lost_recovery_hours"`
	LostSpareWaitHours     types.Float64 `tfsdk:"lost_spare_wait_hours"`
	NoSpareProbability     types.Float64 `tfsdk:"no_spare_probability"`
	BestSpares             types.Int64   `tfsdk:"best_spares"`
	BestSparesGoodput      types.Float64 `tfsdk:"best_spares_goodput"`
	BestSparesPerNodeHour  types.Float64 `tfsdk:"best_spares_goodput_per_node_hour"`
	Warnings               types.List    `tfsdk:"warnings"`
}
