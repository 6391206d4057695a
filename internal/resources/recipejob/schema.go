package recipejob

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// What wait_for accepts: when Create returns.
const (
	waitSubmitted = "submitted"
	waitRunning   = "running"
	waitCompleted = "completed"
)

func (r *jobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	keepFloat := []planmodifier.Float64{float64planmodifier.UseStateForUnknown()}
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc, PlanModifiers: keep}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc, PlanModifiers: keepInt}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One training run from a recipe of the catalog (`hypercompute_recipes`), or of the team's own program (`recipe.custom`), on a partition of a " +
			"`hypercompute_training_cluster`, run as a Slurm batch job that checkpoints and resumes. The resolved job is " +
			"written to the cluster controller's metadata (`hypercompute-job-<name>`); the controller's agent renders it, " +
			"submits it (`--requeue`, with a warning signal before the time limit) and reports its state and the trainer's " +
			"progress, which refresh reads: no network path from Terraform to the cluster is needed.\n\n" +
			"Every change to the job's spec replaces the job (the plan shows it): the running job is cancelled and a new " +
			"one submitted, which resumes from the newest checkpoint in `checkpoint.directory`. Destroy cancels a pending or " +
			"running job and waits until it holds no node. A job requeued by Slurm (`scontrol requeue`, a node failure) " +
			"resumes from its newest complete checkpoint; `restarts` and `time_lost` show what failures cost.",
		Attributes: map[string]schema.Attribute{
			"id":      tfutil.IDAttribute("`projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}`; the import ID may also be `{cluster}/{name}` in the provider's project and zone."),
			"cluster": tfutil.ClusterAttribute(""),
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Job name: the Slurm job name and part of the controller metadata key. A letter, then letters, digits, `-` and `_`, at most 63 characters.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a job name", Check: cc.ValidateJobName}},
			},
			"partition": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Slurm partition the job runs on (`hypercompute_node_partition.<name>.name`). A name the cluster does not have is refused at plan, unless a `hypercompute_node_partition` of that name is planned in the same operation. Its machine type decides the recipe's profile: GPU recipes need a GPU partition, the CPU recipe a CPU one.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a Slurm partition name", Check: catalog.ValidateSlurmPartitionName}},
			},
			"recipe": schema.SingleNestedAttribute{
				Required: true,
				MarkdownDescription: "What the job trains: a row of the recipe catalog (`model`, `size`, `mode`; `data.hypercompute_recipes`), " +
					"or `custom`, the team's own program. Exactly one of `model` and `custom`.",
				Attributes: map[string]schema.Attribute{
					"model": schema.StringAttribute{Optional: true, MarkdownDescription: "Model family of a catalog recipe, e.g. `llama3.1`, `gemma2`, or `tiny-gpt` (the CPU recipe). Needs `size` and `mode`."},
					"size":  schema.StringAttribute{Optional: true, MarkdownDescription: "Model size, e.g. `8b`, `70b`, `405b` (`9b`, `27b` for `gemma2`); `2m` or `8m` for `tiny-gpt`."},
					"mode": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "`pretrain`, `continued_pretrain` (needs `checkpoint.resume_from`), `sft` or `rl`.",
						Validators:          []validator.String{stringvalidator.OneOf(recipes.ModePretrain, recipes.ModeContinuedPretrain, recipes.ModeSFT, recipes.ModeRL)},
					},
					"custom": customSchema(),
				},
			},
			"nodes": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Nodes the job runs on. Defaults to the recipe's node count for the partition's machine family. At most the partition's static plus dynamic nodes.",
				PlanModifiers:       keepInt,
				Validators:          []validator.Int64{int64validator.Between(1, cc.MaxPartitionNodes)},
			},
			"overrides": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Changes to the recipe's defaults.",
				Attributes: map[string]schema.Attribute{
					"max_steps": schema.Int64Attribute{
						Optional: true, MarkdownDescription: "Optimizer steps to train for. Defaults to the recipe's `max_steps` (`data.hypercompute_recipes`): the source recipe's training length (1,168,251 for pretraining, 1,000 for SFT, 1,000,000 GRPO steps for RL, 200 / 100 for `tiny-gpt`). For a custom program, `HYPERCOMPUTE_MAX_STEPS` in its environment; unset, the program decides.",
						Validators: []validator.Int64{int64validator.AtLeast(1)},
					},
					"hyperparameters": tfutil.OptionalMap(schema.MapAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: "Recipe hyperparameters by name (`learning_rate`, `micro_batch`, `global_batch`, `seq_length`, ...), as strings.",
					}),
					"container_image": schema.StringAttribute{Optional: true, MarkdownDescription: "Container image of a GPU recipe (imported with enroot, run with pyxis)."},
					"precision": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Training precision instead of the recipe's: `bf16` or `fp8` (`fp32` is the CPU recipe's only one). The partition's machine family must train in it (the machine catalog: no `fp8` on `a3-high`, whose published recipes are all bf16), and only Megatron-Bridge recipes (Llama 3.1 pretraining, continued pretraining and SFT) switch precision; refused at plan otherwise.",
						Validators:          []validator.String{stringvalidator.OneOf(catalog.Precisions()...)},
					},
					"env": tfutil.OptionalMap(schema.MapAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: "Extra environment for every task.",
					}),
				},
			},
			"checkpoint": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Where and how often the job checkpoints.",
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]schema.Attribute{
					"directory": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Checkpoint directory on storage every node mounts. Defaults to `<lustre>/checkpoints/<name>` when the cluster has Managed Lustre, else `/home/checkpoints/<name>`.",
						Validators:          []validator.String{absPath()},
						PlanModifiers:       keep,
					},
					"interval": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Time between checkpoints: a duration (`\"90s\"`, `\"30m\"`, `\"2h\"`) or `\"auto\"` (default): the Young/Daly interval √(2·C·M) from the partition's expected time between failures for the job's node count (M, catalog figures per machine family) and the checkpoint cost C. The CPU recipe measures C and recomputes the interval after every checkpoint; GPU recipes count checkpoints in steps, so the interval is divided by the recipe's expected step time (6 × parameters × tokens per step at 40% of the GPUs' peak rate) and, for `auto`, C is estimated at plan from the recipe's checkpoint size and the write bandwidth of the storage `directory` is on (a Cloud Storage bucket mount: the catalog's per-VM gcsfuse figure; Managed Lustre: its tier × capacity; a Filestore `/home` the cluster names: the tier's published write throughput at its capacity; without a figure the recipe's `save_interval_steps` applies). A duration shorter than that estimated C is refused at plan. CPU machine families have no published failure figures, so jobs on CPU partitions set a duration.",
						Validators:          []validator.String{intervalValidator{}},
						PlanModifiers:       keep,
					},
					"keep_last": schema.Int64Attribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Complete checkpoints kept; older ones are deleted. Default 3.",
						Validators:          []validator.Int64{int64validator.Between(1, 1000)},
						PlanModifiers:       keepInt,
					},
					"resume_from": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Checkpoint directory whose weights start the run (`continued_pretrain`, `sft`); the job's own newest checkpoint wins over it on a restart.",
						Validators:          []validator.String{absPath()},
					},
				},
			},
			"restart_policy": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "What the job does when its training step fails on its own — a rank killed by an OOM, a segfault or an NCCL abort ends the step (`srun --kill-on-bad-exit`): it restarts the step inside its allocation from the newest complete checkpoint, at most `max_restarts` times, as HyperPod's auto-resume does. A step that failed without progress since it started (no new checkpoint, no step logged) is not restarted: a bad script or bad data fails the same way every time. Stops by Slurm (time limit, requeue, cancel, node failure) are not failures of the step and are handled by Slurm's requeue. `auto_restarts` and `last_restart_cause` report what happened.",
				Default: objectdefault.StaticValue(types.ObjectValueMust(restartPolicyTypes, map[string]attr.Value{
					"max_restarts": types.Int64Value(defaultMaxRestarts), "backoff": types.StringValue(defaultRestartBackoff),
				})),
				Attributes: map[string]schema.Attribute{
					"max_restarts": schema.Int64Attribute{
						Optional: true, Computed: true,
						Default:             int64default.StaticInt64(defaultMaxRestarts),
						MarkdownDescription: fmt.Sprintf("Automatic restarts per Slurm job; then the job fails with the step's last exit code. `0` never restarts. Default %d.", defaultMaxRestarts),
						Validators:          []validator.Int64{int64validator.Between(0, 100)},
					},
					"backoff": schema.StringAttribute{
						Optional: true, Computed: true,
						Default:             stringdefault.StaticString(defaultRestartBackoff),
						MarkdownDescription: fmt.Sprintf("Wait before the first restart, doubled before each next one: a duration (`\"30s\"`, `\"2m\"`), at most `1h`. Default `%s`.", defaultRestartBackoff),
						Validators:          []validator.String{backoffValidator{}},
					},
				},
			},
			"tensorboard_dir": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Where training scalars go: TensorBoard event files, or `metrics.jsonl` (one JSON object per logged step) where TensorBoard is not installed. Defaults to `<run_dir>/tensorboard`.",
				Validators:          []validator.String{absPath()},
				PlanModifiers:       keep,
			},
			"time_limit": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Wall-clock limit of each run of the job (Slurm `--time`, rounded up to whole minutes): a duration (`\"90m\"`, `\"12h\"`, `\"2d\"`), at least `3m`. The job gets SIGUSR1 two minutes before it, checkpoints, and requeues itself. Defaults to the partition's limit.",
				Validators:          []validator.String{timeLimitValidator{}},
			},
			"export_path": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Where the final model is written once training completes; none when unset.",
				Validators:          []validator.String{absPath()},
			},
			"wait_for": schema.StringAttribute{
				Optional: true, Computed: true,
				Default:             stringdefault.StaticString(waitRunning),
				MarkdownDescription: "When an apply that creates the job returns: `submitted` (Slurm took it), `running` (default: it started on its nodes) or `completed` (it ended COMPLETED; any other end fails the apply with Slurm's reason). Changing it changes nothing on the cluster.",
				Validators:          []validator.String{stringvalidator.OneOf(waitSubmitted, waitRunning, waitCompleted)},
			},
			"generation":           str("Identifies this spec of the job; a replacement has a new one, so its reports are never mistaken for the old job's."),
			"run_dir":              str("The job's directory on the cluster's `/home`: the batch script's programs, the log, the progress file."),
			"job_id":               num("Slurm job id."),
			"state":                str("Slurm job state as last reported (`PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TIMEOUT`, `REQUEUED`, ...), or `REJECTED` when the controller could not submit it."),
			"start_time":           str("When the job (last) started, RFC 3339."),
			"end_time":             str("When the job ended, RFC 3339; empty while it runs."),
			"log_path":             str("The job's standard output file on the cluster."),
			"step":                 num("Last training step the job logged."),
			"checkpoints":          num("Checkpoints the job has written."),
			"last_checkpoint_step": num("Step of the newest complete checkpoint."),
			"last_checkpoint_time": str("When the newest complete checkpoint was written, RFC 3339."),
			"first_loss":           schema.Float64Attribute{Computed: true, MarkdownDescription: "Training loss at the first logged step.", PlanModifiers: keepFloat},
			"last_loss":            schema.Float64Attribute{Computed: true, MarkdownDescription: "Training loss at the last logged step.", PlanModifiers: keepFloat},
			"mfu": schema.Float64Attribute{Computed: true, PlanModifiers: keepFloat, MarkdownDescription: "Program goodput: the job's model FLOPs utilisation, in [0, 1] — model FLOPs per step (6 × parameters + 12 × layers × width × sequence per token, PaLM's count) over step time over the peak, " +
				"a step-time-weighted mean over the job's steps. The CPU recipe measures its own node's matmul peak at start; null until the trainer reports one."},
			"checkpoint_interval": str("The checkpoint interval in use (a fixed interval, or the current Young/Daly interval for `auto`)."),
			"time_lost":           str("Training time redone after restarts (the time since the last checkpoint when each earlier run stopped)."),
			"restarts":            num("Times the job restarted (requeues, node failures, automatic restarts)."),
			"auto_restarts":       num("Automatic restarts of the training step after it failed (`restart_policy`)."),
			"last_restart_cause":  str("Why the step last restarted automatically: its exit code, the step it had reached and when; empty when it never did."),
			"timeouts":            timeouts.Attributes(ctx, timeouts.Opts{Create: true, Delete: true}),
		},
	}
}
