package goodputplan

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	in := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Optional: true, MarkdownDescription: desc}
	}
	inComputed := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Optional: true, Computed: true, MarkdownDescription: desc}
	}
	out := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: desc}
	}
	auto, _ := catalog.RecoveryFor(catalog.RecoveryAutomatic)
	manual, _ := catalog.RecoveryFor(catalog.RecoveryManual)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Plans a training job's **runtime goodput** before it runs: the share of the job's wall time that " +
			"becomes training progress, after checkpoint pauses, rework after interruptions, recovery and waiting for " +
			"repaired nodes. Young/Daly gives the checkpoint interval (T = √(2·C·M)); the plan also gives the expected " +
			"interruptions, the time lost per cause, the spare count that maximises goodput per node-hour paid, and " +
			"warnings where a choice caps goodput. Failure rates default to published figures per machine profile " +
			"(`reliability_source` names them); every figure can be overridden. `recipe_job`'s `auto` checkpoint " +
			"interval uses the same code. Makes no API call.\n\n" +
			"Give the checkpoint cost either directly (`checkpoint_cost_seconds`) or as a storage target and size " +
			"(`checkpoint_storage`, `checkpoint_size_gib`), from which it follows: Lustre writes at its tier's MB/s per " +
			"TiB × capacity, a bucket and local SSD at a per-VM rate for each VM's shard.",
		Attributes: map[string]schema.Attribute{
			"machine_type": schema.StringAttribute{Required: true,
				MarkdownDescription: "Machine type of the job's nodes, e.g. `a3-megagpu-8g` (a partition's `machine_type`)."},
			"nodes": schema.Int64Attribute{Required: true,
				MarkdownDescription: "Nodes the job runs on (at least 1)."},
			"spares": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: "Healthy idle nodes kept to replace a failed one at once. Default 0."},
			"job_length_hours": schema.Float64Attribute{Required: true,
				MarkdownDescription: "Wall-clock hours the job holds its nodes (e.g. 720 for 30 days)."},
			"node_mtbf_hours": inComputed("Mean time between interruptions of one node, in hours. Defaults to the " +
				"machine profile's published figure per GPU divided by the node's GPUs; required for profiles without one " +
				fmt.Sprintf("(figures exist for %s).", strings.Join(catalog.ReliabilityProfiles(), ", "))),
			"recovery": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: fmt.Sprintf("Recovery regime: `automatic` (health checks and automatic repair: detect %v, swap %v, repair %v, restart %v) "+
					"or `manual` (a person: detect %v, swap %v, repair %v, restart %v). Default `automatic`. The four times below override it.",
					auto.Detect, auto.Swap, auto.Repair, auto.Restart, manual.Detect, manual.Swap, manual.Repair, manual.Restart)},
			"detect_minutes":  inComputed("Minutes from a node failing to the job stopped and the node known."),
			"swap_minutes":    inComputed("Minutes to put a free spare in the failed node's place."),
			"repair_minutes":  inComputed("Mean minutes until a failed node is back in service; a job with no free spare waits for it."),
			"restart_minutes": inComputed("Minutes to relaunch the job and load its last checkpoint."),
			"checkpoint_cost_seconds": in("Seconds training pauses for each checkpoint. Conflicts with `checkpoint_storage`; " +
				"one of the two is required."),
			"async_persist_seconds": in("With `checkpoint_cost_seconds`: seconds after the pause until an asynchronous " +
				"checkpoint is durable. Default 0 (synchronous)."),
			"checkpoint_storage": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Where checkpoints are written, to derive their cost: `lustre`, `local-ssd` or `bucket`. " +
					"Needs `checkpoint_size_gib`; `lustre` also needs `lustre_throughput` and `lustre_capacity_gib`."},
			"checkpoint_size_gib": in("Size of the whole job's checkpoint in GiB (all shards), with `checkpoint_storage`."),
			"lustre_throughput": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Lustre tier in MB/s per TiB (`125`, `250`, `500`, `1000`), with `checkpoint_storage = \"lustre\"`."},
			"lustre_capacity_gib": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Lustre capacity in GiB, valid for the tier, with `checkpoint_storage = \"lustre\"`."},
			"async_checkpoints": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "With `checkpoint_storage`: training pauses only for the device-to-host copy and the write " +
					"to storage happens in the background. Default `false`."},
			"checkpoint_interval_minutes": inComputed("Minutes of training between checkpoints. Default: the Young/Daly optimum " +
				"(never shorter than an asynchronous checkpoint takes to persist). Read back as the interval the plan uses."),
			"max_spares": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Largest spare count `best_spares` considers. Default: a quarter of `nodes`, at least 8, at most 512."},

			"id":                       schema.StringAttribute{Computed: true, MarkdownDescription: "A summary of the inputs."},
			"reliability_source":       schema.StringAttribute{Computed: true, MarkdownDescription: "Where the failure rate comes from."},
			"job_mtbf_hours":           out("The job's mean time between interruptions: `node_mtbf_hours` / `nodes`."),
			"pause_seconds":            out("Seconds training pauses per checkpoint."),
			"persist_seconds":          out("Seconds after the pause until a checkpoint is durable (0 when synchronous)."),
			"optimal_interval_minutes": out("Young/Daly optimal interval √(2·C·M), in minutes."),
			"expected_interruptions":   out("Expected interruptions over the job."),
			"goodput":                  out("Expected runtime goodput: the share (0-1) of wall time that is training progress."),
			"lost_checkpointing_hours": out("Hours paused for checkpoints."),
			"lost_rework_hours":        out("Hours of progress redone after interruptions (since the last durable checkpoint)."),
			"lost_recovery_hours":      out("Hours detecting failures, swapping in spares and restarting."),
			"lost_spare_wait_hours":    out("Hours waiting for a repaired node when no spare was free."),
			"no_spare_probability":     out("Share of interruptions that find no free spare."),
			"best_spares": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Spare count that maximises goodput per node-hour paid (goodput × nodes / (nodes + spares))."},
			"best_spares_goodput":               out("Goodput with `best_spares` spares."),
			"best_spares_goodput_per_node_hour": out("Goodput × nodes / (nodes + spares) with `best_spares` spares."),
			"warnings": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Where a choice caps goodput: slow synchronous checkpoints, an interval far from the optimum, " +
					"a checkpoint longer than the MTBF, too few spares, checkpoints on local SSD, goodput under 90%."},
		},
	}
}
