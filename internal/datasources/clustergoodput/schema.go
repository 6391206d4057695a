package clustergoodput

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	num := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: desc}
	}
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	figures := map[string]schema.Attribute{
		"jobs":               count("Jobs counted."),
		"wait_seconds":       num("Seconds the jobs waited eligible before they ran, every attempt summed."),
		"run_seconds":        num("Seconds the jobs ran (sacct's elapsed time), every attempt summed."),
		"lost_seconds":       num("Seconds of run time that became no progress: a recipe's own `lost_seconds` (time redone since its last checkpoint), else the whole of every attempt a requeue, node failure or preemption ended."),
		"restarts":           count("Attempts after the first (requeues, node failures, preemptions)."),
		"scheduling_goodput": num("run / (run + wait), in [0, 1]; 1 when there is nothing to divide."),
		"runtime_goodput":    num("(run - lost) / run, in [0, 1]; 1 when nothing ran."),
		"program_goodput": num("Model FLOPs utilisation (MFU) recipe jobs reported in their progress: model FLOPs per step (6 × parameters + 12 × layers × width × sequence per token, PaLM's count) over step time over the peak — the catalog's datasheet dense rate per GPU, or the CPU recipe's own measured matmul peak. " +
			"For a set of jobs, the mean of theirs weighted by `program_seconds`. Null when no job reported one."),
		"program_seconds": num("Step time `program_goodput` is measured over; 0 when no job reported MFU."),
	}
	job := map[string]schema.Attribute{
		"job_id": str("Slurm job id."), "name": str("Job name."), "partition": str("Partition."),
		"state": str("The last attempt's state (`COMPLETED`, `FAILED`, `RUNNING`, `PENDING`, ...)."),
	}
	for k, v := range figures {
		if k != "jobs" {
			job[k] = v
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Goodput a `hypercompute_training_cluster` measured from its Slurm accounting records (set its `accounting` block): " +
			"scheduling goodput (time jobs ran against time they waited), runtime goodput (run time that became progress, against time lost to failures and restarts) and program goodput (the model FLOPs utilisation recipe jobs report), " +
			"for the whole cluster, per partition and per job, over a window. The controller's agent computes it from `sacct` every few seconds and reports it as a guest attribute; " +
			"`hypercompute-agent goodput --since 7d` on a login node prints the same report for any window.",
		Attributes: map[string]schema.Attribute{
			"cluster": schema.StringAttribute{Required: true, MarkdownDescription: "The training cluster: `hypercompute_training_cluster.<name>.id`."},
			"window": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: fmt.Sprintf("Jobs active in this window up to now count whole: one of %s. Default `%s`.", "`"+strings.Join(cc.GoodputWindows, "`, `")+"`", defaultWindow)},
			"generated_at": str("When the controller measured it (RFC 3339)."),
			"since":        str("Start of the window (RFC 3339)."),
			"total":        schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "Every job in the window.", Attributes: figures},
			"partitions": schema.MapNestedAttribute{Computed: true, MarkdownDescription: "Per partition, by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: figures}},
			"jobs": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The newest jobs, oldest first, as many as fit the controller's report.",
				NestedObject: schema.NestedAttributeObject{Attributes: job}},
			"jobs_omitted": count("Older jobs counted in `total` and `partitions` but not listed in `jobs`."),
			"repairs": schema.MapNestedAttribute{Computed: true,
				MarkdownDescription: "The health policy's repairs in the window per partition, from the controller's health records (`hypercompute_health_policy`).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"repairs":      count("Repairs that overlap the window."),
					"node_seconds": num("Node time within the window the repaired nodes were out of service for them (until now for one still running)."),
				}}},
		},
	}
}
