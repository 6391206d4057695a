package machinetype

import "github.com/hashicorp/terraform-plugin-framework/types"

type model struct {
	Name                   types.String  `tfsdk:"name"`
	Zone                   types.String  `tfsdk:"zone"`
	ID                     types.String  `tfsdk:"id"`
	Family                 types.String  `tfsdk:"family"`
	Profile                types.String  `tfsdk:"profile"`
	CPUs                   types.Int64   `tfsdk:"cpus"`
	MemoryMB               types.Int64   `tfsdk:"memory_mb"`
	Arch                   types.String  `tfsdk:"arch"`
	GPUCount               types.Int64   `tfsdk:"gpu_count"`
	GPUType                types.String  `tfsdk:"gpu_type"`
	GPUSlurmType           types.String  `tfsdk:"gpu_slurm_type"`
	GPUMemoryGB            types.Int64   `tfsdk:"gpu_memory_gb"`
	NICStack               types.String  `tfsdk:"nic_stack"`
	GPUNICCount            types.Int64   `tfsdk:"gpu_nic_count"`
	MTU                    types.Int64   `tfsdk:"mtu"`
	NetworkBandwidthGbps   types.Int64   `tfsdk:"network_bandwidth_gbps"`
	LocalSSDGB             types.Int64   `tfsdk:"local_ssd_gb"`
	ImageFamily            types.String  `tfsdk:"image_family"`
	ImageProject           types.String  `tfsdk:"image_project"`
	OnHostMaintenance      types.String  `tfsdk:"on_host_maintenance"`
	SpotCapable            types.Bool    `tfsdk:"spot_capable"`
	FlexStartCapable       types.Bool    `tfsdk:"flex_start_capable"`
	ReservationBound       types.Bool    `tfsdk:"reservation_bound"`
	ReservationRecommended types.Bool    `tfsdk:"reservation_recommended"`
	Placement              types.String  `tfsdk:"placement"`
	NCCLBusBandwidthGBps   types.Float64 `tfsdk:"nccl_bus_bandwidth_gbps"`
	MinResumeTimeout       types.Int64   `tfsdk:"min_resume_timeout"`
}
