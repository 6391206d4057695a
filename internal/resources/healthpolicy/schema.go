package healthpolicy

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func quoted(v []string) string { return "`" + strings.Join(v, "`, `") + "`" }

func (r *policyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	optInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
	}
	optFloat := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Optional: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Health checks, repairs and their limits for the partitions of a `hypercompute_training_cluster`. " +
			"The policy is written to the controller's metadata (`hypercompute-health-policy-<name>`); the controller's agent " +
			"renders it into slurm.conf (`HealthCheckProgram` every `interval_seconds`, prolog and epilog scripts) and publishes " +
			"the checks for the nodes, whose agent runs the real tools (`nvidia-smi`, `dcgmi diag`, nccl-tests `all_reduce_perf`), " +
			"parses their machine-readable output and drains its node with the reason `hc:<check>: <evidence>` (visible in " +
			"`sinfo -R`). The controller then requeues the node's jobs, so they resume from their checkpoint, and repairs the " +
			"node through the Compute API (`instances.reset`, `instances.reportHostAsFaulty`) within the limits, returning it to " +
			"service once its VM is back. CPU partitions skip the GPU checks. Apply waits until the controller reports the " +
			"policy applied. Read the records with the `hypercompute_cluster_health` data source.",
		Attributes: map[string]schema.Attribute{
			"id":      tfutil.IDAttribute("`projects/{project}/zones/{zone}/clusters/{cluster}/healthPolicies/{name}` (also the import ID)."),
			"cluster": tfutil.ClusterAttribute("", replace...),
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Policy name (lowercase letters, digits and hyphens); part of the controller metadata key. A partition takes the first policy by name that targets it.",
				PlanModifiers:       replace,
			},
			"partitions": tfutil.OptionalList(schema.ListAttribute{
				ElementType:         types.StringType,
				MarkdownDescription: "Partitions the policy covers; every partition of the cluster when left out. A name the cluster does not have is refused at plan, unless a `hypercompute_node_partition` of that name is planned in the same operation (reference its `name`, so it is created first).",
				Validators:          []validator.List{listvalidator.ValueStringsAre(tfutil.StringCheck{Desc: "a Slurm partition name", Check: catalog.ValidateSlurmPartitionName})},
			}),
			"interval_seconds": optInt("How often periodic checks run (Slurm's `HealthCheckInterval`), in seconds, at least 1. Default 60 (leave it out; 0 is refused, since it would mean the default)."),
			"requeue_jobs": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Requeue the jobs of a failed node before its repair (`scontrol requeue`), so they resume from their checkpoint. Default true.",
			},
			"escalation": tfutil.OptionalList(schema.ListAttribute{
				ElementType:         types.StringType,
				MarkdownDescription: "The escalation ladder: a node that fails again within `escalation_window_hours` of its last repair takes the next action of this list (the last one repeats), e.g. `[\"reboot\", \"replace\"]`. Actions: " + quoted(cc.HealthActions) + ".",
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(cc.HealthActions...))},
			}),
			"spare_node_count":        optInt("Spare static nodes kept idle in each partition the policy covers, held in a Slurm reservation (`hc-spares-PARTITION`) that jobs do not run in. While a node of the partition is out of service (drained by a check, under repair) one spare leaves the reservation, so a job's node count holds; once repaired, an idle node (the repaired one) becomes a spare. At most all nodes but one are held. Default 0."),
			"escalation_window_hours": optFloat("How long after a repair a new failure of the same node escalates. Default 24."),
			"limits": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Safety limits: never a repair storm.",
				Attributes: map[string]schema.Attribute{
					"max_concurrent_repairs":  optInt("Repairs that may run at once in the cluster, at least 1. Default 1 (leave it out; 0 is refused: to leave failed nodes drained, use `action = \"drain\"`)."),
					"max_unavailable_percent": optInt("Share of a partition's nodes that may be under repair at once (at least one node). Default 10."),
					"cooldown_seconds":        optInt("Time between two repairs started by this policy. Default 0."),
					"repair_timeout_seconds":  optInt("A repair whose node is not back in service by then fails (and the next failure escalates). Default 900."),
				},
			},
			"checks": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: "The checks, each with its schedules, thresholds and the action its failure takes.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "The check: " + quoted(cc.HealthChecks) + ". GPU checks (" + quoted(cc.GPUChecks) + ") are skipped on partitions without GPUs.",
						Validators:          []validator.String{stringvalidator.OneOf(cc.HealthChecks...)},
					},
					"schedules": tfutil.OptionalList(schema.ListAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: "When the check runs: " + quoted(cc.HealthSchedules) + ". Default `[\"periodic\"]`; every check also runs on demand (`hypercompute-agent healthcheck on_demand` on a node).",
						Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(cc.HealthSchedules...))},
					}),
					"action": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "What a failure takes: " + quoted(cc.HealthActions) + ". Default `drain` (the node stays drained for a person), except `remapped_rows`: `reboot` (a GPU reset applies a pending repair) and `unrepairable_memory`: `replace` (the fault stays with the physical host, so `reboot` and `reimage` are refused for it and an escalation ladder never steps below `replace`).",
						Validators:          []validator.String{stringvalidator.OneOf(cc.HealthActions...)},
					},
					"expected_gpus":          optInt("`gpu`: GPUs `nvidia-smi` must see; default the machine type's count from the catalog."),
					"xids":                   tfutil.OptionalList(schema.ListAttribute{ElementType: types.Int64Type, MarkdownDescription: "`gpu`: XID errors in the kernel log that fail the check, e.g. `[48, 79]`."}),
					"max_uncorrected_ecc":    optInt("`ecc`: uncorrected volatile ECC errors allowed per GPU. Default 0."),
					"dcgm_level":             optInt("`dcgm`: `dcgmi diag` level, 1 to 4. Default 2."),
					"max_nvlink_errors":      optInt("`nvlink`: NVLink error counter limit (`nvidia-smi nvlink -e`). A node whose GPUs have no NVLink peers (a single-GPU VM, L4s) prints no links: the check neither fails nor passes there, it reports itself not applicable in the `healthcheck` output and the boot log. `remapped_rows` fails on GPU memory repairs a GPU reset applies (`nvidia-smi -q`: Remapped Rows `Pending`, ECC `Channel Repair Pending` or `TPC Repair Pending`); `unrepairable_memory` fails on memory no reset repairs (`Remapping Failure Occurred`, `Unrepairable Memory`); declare both to cover both outcomes."),
					"paths":                  tfutil.OptionalList(schema.ListAttribute{ElementType: types.StringType, MarkdownDescription: "`disk`: paths whose free space is checked (default `/`); `mounts`: mount points that must answer (default `/home`)."}),
					"min_free_gb":            optFloat("`disk`: free space each path must keep, in GB."),
					"timeout_seconds":        optInt("`mounts`: how long a mount point may take to answer. Default 10."),
					"min_bus_bandwidth_gbps": optFloat("`nccl`: all_reduce bus bandwidth below this fails; default the machine family's pass threshold from the catalog. The node's own run uses its GPUs; `hypercompute-agent nccl-pairs PARTITION` on the controller tests idle nodes pairwise and isolates the bad node of a failing pair."),
					"straggler_factor":       optFloat("`straggler`: a node whose compute time per step (each rank of a running recipe job records its own) is above this factor times the median of the job's other nodes in the partition fails; the controller compares them. Default 1.3."),
				}},
			},
			"generation": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Hash of the policy's content; the controller reports it once applied.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
