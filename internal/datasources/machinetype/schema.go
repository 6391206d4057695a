package machinetype

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	flag := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What the provider knows about one Compute Engine machine type: its GPUs, GPU network " +
			"stack, capacity rules and defaults. Modules use it to decide by the provider's own table (for example " +
			"whole-node jobs on GPU machines) instead of restating machine facts. Makes no API call.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true,
				MarkdownDescription: "Machine type name, e.g. `a3-megagpu-8g` or `n2-standard-8`."},
			"zone": schema.StringAttribute{Optional: true,
				MarkdownDescription: "When set, the read fails unless the zone offers the machine type."},
			"id":                      str("The machine type name."),
			"family":                  str("Machine series: `a3`, `a4`, `a4x`, `g2`, `n2`, ..."),
			"profile":                 str("The family's variant with its own behaviour (`a3-high`, `a3-mega`, `a3-ultra`), else the family."),
			"cpus":                    num("vCPUs."),
			"memory_mb":               num("Memory in MB as the machineTypes API reports it."),
			"arch":                    str("CPU architecture: `x86_64` or `arm64`."),
			"gpu_count":               num("GPUs per VM; 0 without GPUs."),
			"gpu_type":                str("Compute accelerator type, e.g. `nvidia-h100-mega-80gb`; null without GPUs."),
			"gpu_slurm_type":          str("GRES type Slurm sees, e.g. `h100`; null without GPUs."),
			"gpu_memory_gb":           num("Memory per GPU in GB; 0 without GPUs."),
			"nic_stack":               str("GPU-to-GPU network stack: `none`, `tcpx`, `tcpxo` or `rdma`."),
			"gpu_nic_count":           num("NICs that carry GPU traffic."),
			"mtu":                     num("MTU of the VPCs the GPU traffic runs on (1460 without a GPU network)."),
			"network_bandwidth_gbps":  num("Total network bandwidth in Gbps."),
			"local_ssd_gb":            num("Bundled local SSD capacity in GB; 0 when none is bundled."),
			"image_family":            str("Default image family of the nodes."),
			"image_project":           str("Project of the default image family."),
			"on_host_maintenance":     str("`MIGRATE` or `TERMINATE`."),
			"spot_capable":            flag("Whether the machine type runs as a Spot VM."),
			"flex_start_capable":      flag("Whether the machine type can be obtained with flex-start (DWS)."),
			"reservation_bound":       flag("Whether VMs can only come from a reservation."),
			"reservation_recommended": flag("Whether capacity without a reservation is unreliable."),
			"placement":               str("How compact placement applies: `none`, `optional` or `reservation`."),
			"nccl_bus_bandwidth_gbps": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "NCCL bus bandwidth (GB/s) two healthy nodes reach; 0 without a multi-node GPU network."},
			"min_resume_timeout": num("Least ResumeTimeout (seconds) the provider renders for partitions of this machine type; 0 when the cluster's applies."),
		},
	}
}
