package recipejob

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The user's own program (recipe.custom): what it may set, how it is checked before any API
// call, and what the partition decides for it at plan.

var customPath = path.Root("recipe").AtName("custom")

func customSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The team's own training program instead of a catalog recipe, run in the same batch script as the recipes: " +
			"`--requeue`, SIGUSR1 before the time limit and on a host's stop notice, the `restart_policy`, the checkpoint directory, progress and goodput. " +
			"Each task runs the program in the job's run directory with `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT` " +
			"and `HYPERCOMPUTE_CHECKPOINT_DIR`, `HYPERCOMPUTE_CHECKPOINT_INTERVAL_SECONDS` (0 with `HYPERCOMPUTE_CHECKPOINT_AUTO=1`), " +
			"`HYPERCOMPUTE_KEEP_LAST`, `HYPERCOMPUTE_RESUME_FROM`, `HYPERCOMPUTE_MAX_STEPS` (`overrides.max_steps`), `HYPERCOMPUTE_RUN_DIR` set. " +
			"**Save a checkpoint on SIGUSR1** and exit: the job then requeues itself and the next run resumes from it. " +
			"Python programs `import hypercompute` (a module the job puts on `PYTHONPATH`) for checkpoints, resume, signals and progress; " +
			"other programs write `progress.json` in the run directory themselves (the Custom programs guide). " +
			"Other `overrides` than `max_steps` belong to catalog recipes and are refused.",
		Attributes: map[string]schema.Attribute{
			"command": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A shell command line (bash) each task runs, e.g. `python3 /home/team/train.py --lr 3e-4`. Exactly one of `command` and `script`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"script": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The program's text (e.g. `file(\"train.py\")`), written to the run directory and executed by each task: " +
					"its first line `#!` names the interpreter (`#!/usr/bin/python3`, `#!/bin/bash`). At most 192 KiB.",
			},
			"gpus_per_node": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "GPUs the job takes on each node, one task per GPU. Defaults to all GPUs of the partition's machine type; none (one task per node) on a machine type without GPUs, where a number above 0 is refused at plan, as is one above the machine type's GPUs.",
				Validators:          []validator.Int64{int64validator.Between(0, 64)},
			},
			"environment": tfutil.OptionalMap(schema.MapAttribute{
				ElementType:         types.StringType,
				MarkdownDescription: "Extra environment for every task. The variables the launch sets (`RANK`, ..., `HYPERCOMPUTE_CHECKPOINT_DIR`, ...) are refused; `PYTHONPATH` is kept after the run directory.",
			}),
			"container_image": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Container image the tasks run in (imported once per cluster with enroot, run with pyxis), e.g. `nvcr.io/nvidia/pytorch:24.12-py3`. Only on GPU partitions, whose images carry enroot and pyxis; without it the program runs on the node's own OS.",
				Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[a-z0-9][a-z0-9._:/@-]*$`), "must be a container image reference (registry/repository:tag)")},
			},
			"flops_per_step": schema.Float64Attribute{
				Optional: true,
				MarkdownDescription: "Model FLOPs of one optimizer step over all tasks (e.g. 6 × parameters × tokens per step), for `mfu`: the helper divides it by the step time and the peak — " +
					"the catalog's dense bf16 figure of the job's GPUs, or on CPU a matmul rate it measures when the program uses PyTorch. Without it `mfu` stays null.",
				Validators: []validator.Float64{float64validator.AtLeast(1)},
			},
		},
	}
}

// readCustom decodes recipe.custom; nil when it is null or unknown.
func readCustom(ctx context.Context, rec recipeModel, diags *diag.Diagnostics) *customModel {
	if rec.Custom.IsNull() || rec.Custom.IsUnknown() {
		return nil
	}
	var c customModel
	diags.Append(rec.Custom.As(ctx, &c, tfutil.ObjectOpts)...)
	return &c
}

func (c *customModel) known() bool {
	return !c.Command.IsUnknown() && !c.Script.IsUnknown() && !c.GPUsPerNode.IsUnknown() && !c.Environment.IsUnknown() &&
		!c.ContainerImage.IsUnknown() && !c.FLOPsPerStep.IsUnknown()
}

// validateCustomConfig refuses what is wrong with a custom program whatever the partition: a
// catalog recipe's attributes next to it, neither or both of command and script, a script with no
// interpreter, an environment that overrides the launch's variables, overrides it does not take.
func validateCustomConfig(ctx context.Context, rec recipeModel, m model, diags *diag.Diagnostics) {
	c := readCustom(ctx, rec, diags)
	if c == nil || diags.HasError() {
		return
	}
	for _, a := range []struct {
		name string
		v    types.String
	}{{"model", rec.Model}, {"size", rec.Size}, {"mode", rec.Mode}} {
		if !a.v.IsNull() {
			tfutil.AddInvalid(diags, path.Root("recipe").AtName(a.name),
				"a custom program names no catalog recipe: set either model, size and mode, or custom")
			return
		}
	}
	switch {
	case c.Command.IsUnknown() || c.Script.IsUnknown():
	case c.Command.IsNull() == c.Script.IsNull():
		tfutil.AddInvalid(diags, customPath, "set exactly one of command and script")
		return
	case !c.Script.IsNull() && !strings.HasPrefix(c.Script.ValueString(), "#!"):
		tfutil.AddInvalid(diags, customPath.AtName("script"), "the script must start with a #! line naming its interpreter (#!/usr/bin/python3, #!/bin/bash)")
		return
	case len(c.Script.ValueString())+len(c.Command.ValueString()) > recipes.MaxCustomProgramBytes:
		p := customPath.AtName("script")
		if c.Script.IsNull() {
			p = customPath.AtName("command")
		}
		tfutil.AddInvalid(diags, p, fmt.Sprintf("%d bytes is more than the %d a job's metadata value leaves: keep the program on /home or Lustre and run it with command",
			len(c.Script.ValueString())+len(c.Command.ValueString()), recipes.MaxCustomProgramBytes))
		return
	}
	if !c.Environment.IsUnknown() {
		env := stringMap(c.Environment)
		keys := slices.Sorted(maps.Keys(env))
		for _, k := range keys {
			switch {
			case !envName.MatchString(k):
				tfutil.AddInvalid(diags, customPath.AtName("environment"), fmt.Sprintf("%q is not a valid environment variable name", k))
				return
			case slices.Contains(recipes.CustomReservedEnv(), k):
				tfutil.AddInvalid(diags, customPath.AtName("environment"), fmt.Sprintf("%s is set by the job's launch (ranks, checkpoint directory, ...) and cannot be overridden", k))
				return
			}
		}
	}
	if m.Overrides.IsNull() || m.Overrides.IsUnknown() {
		return
	}
	var ov overridesModel
	diags.Append(m.Overrides.As(ctx, &ov, tfutil.ObjectOpts)...)
	for _, o := range []struct {
		name, instead string
		set           bool
	}{
		{"hyperparameters", "pass them to the program as arguments", len(ov.Hyperparameters.Elements()) > 0},
		{"precision", "the program chooses its own", !ov.Precision.IsNull()},
		{"container_image", "set recipe.custom.container_image", !ov.ContainerImage.IsNull()},
		{"env", "set recipe.custom.environment", len(ov.Env.Elements()) > 0},
	} {
		if o.set {
			tfutil.AddInvalid(diags, path.Root("overrides").AtName(o.name), "belongs to catalog recipes, not a custom program: "+o.instead)
			return
		}
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// customOn fills the custom job's parts that the partition decides: its profile, the GPUs per
// node (all of the machine type's by default), one task per GPU, and the peak for MFU. Every
// error names its attribute.
func customOn(c *customModel, mt catalog.MachineType, p cc.Partition, nodes int, diags *diag.Diagnostics) (profile string, tasks int, custom *recipes.Custom, ok bool) {
	custom = &recipes.Custom{Command: c.Command.ValueString(), Script: c.Script.ValueString()}
	if !c.FLOPsPerStep.IsNull() {
		custom.FLOPsPerStep = c.FLOPsPerStep.ValueFloat64()
	}
	gpus := mt.GPUCount()
	if !mt.HasGPU() {
		gpus = 0
	}
	want := gpus
	// Unknown is the default not filled yet (a plan that could not read the partition).
	if !c.GPUsPerNode.IsNull() && !c.GPUsPerNode.IsUnknown() {
		want = int(c.GPUsPerNode.ValueInt64())
	}
	switch {
	case want > gpus && gpus == 0:
		tfutil.AddInvalid(diags, customPath.AtName("gpus_per_node"), fmt.Sprintf("%d GPUs: partition %s runs %s, which has no GPUs", want, p.Name, p.MachineType))
		return "", 0, nil, false
	case want > gpus:
		tfutil.AddInvalid(diags, customPath.AtName("gpus_per_node"), fmt.Sprintf("%d GPUs: partition %s runs %s, which has %d", want, p.Name, p.MachineType, gpus))
		return "", 0, nil, false
	case !c.ContainerImage.IsNull() && !mt.HasGPU():
		tfutil.AddInvalid(diags, customPath.AtName("container_image"), fmt.Sprintf("partition %s runs %s, which has no GPUs: containers run with enroot and pyxis, which only GPU machine families' images carry", p.Name, p.MachineType))
		return "", 0, nil, false
	}
	profile = recipes.ProfileCPU
	if mt.HasGPU() {
		profile = mt.Profile
		custom.GPUsPerNode = want
		if peak, ok := catalog.PeakDenseTFLOPS(mt.GPU.Type, catalog.PrecisionBF16); ok && want > 0 {
			custom.PeakTFLOPS = peak * float64(want*nodes)
		}
	}
	return profile, max(want, 1), custom, true
}

// customObject is recipe.custom of a job read back from the controller.
func customObject(ctx context.Context, j recipes.Job, diags *diag.Diagnostics) types.Object {
	if j.Custom == nil {
		return types.ObjectNull(customTypes)
	}
	c := j.Custom
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	env := tfutil.EmptyMap(types.StringType)
	if len(j.Env) > 0 {
		var d diag.Diagnostics
		env, d = types.MapValueFrom(ctx, types.StringType, j.Env)
		diags.Append(d...)
	}
	gpus := types.Int64Value(int64(c.GPUsPerNode))
	flops := types.Float64Null()
	if c.FLOPsPerStep > 0 {
		flops = types.Float64Value(c.FLOPsPerStep)
	}
	o, d := types.ObjectValue(customTypes, map[string]attr.Value{
		"command": str(c.Command), "script": str(c.Script), "gpus_per_node": gpus, "environment": env,
		"container_image": str(j.ContainerImage), "flops_per_step": flops,
	})
	diags.Append(d...)
	return o
}

// withResolvedGPUs is recipe with custom.gpus_per_node as the job resolved it (computed: the
// machine type's GPUs unless set).
func withResolvedGPUs(recipe types.Object, j recipes.Job) (types.Object, diag.Diagnostics) {
	if j.Custom == nil || recipe.IsNull() || recipe.IsUnknown() {
		return recipe, nil
	}
	attrs := recipe.Attributes()
	c, ok := attrs["custom"].(types.Object)
	if !ok || c.IsNull() || c.IsUnknown() {
		return recipe, nil
	}
	ca := maps.Clone(c.Attributes())
	ca["gpus_per_node"] = types.Int64Value(int64(j.Custom.GPUsPerNode))
	co, diags := types.ObjectValue(customTypes, ca)
	ra := maps.Clone(attrs)
	ra["custom"] = co
	ro, d := types.ObjectValue(recipeTypes, ra)
	diags.Append(d...)
	return ro, diags
}

// parseTimeLimit reads time_limit: a duration of at least 3 minutes (the job is told 2 minutes
// before it ends), in whole minutes rounded up, or whole days ("2d").
func parseTimeLimit(s string) (int, error) {
	d, auto, err := parseInterval(s)
	if err != nil || auto {
		return 0, fmt.Errorf("%q is not a duration (\"90m\", \"12h\", \"2d\")", s)
	}
	if d < 3*time.Minute {
		return 0, fmt.Errorf("%s is shorter than 3m: the job is sent SIGUSR1 %s before its time limit to checkpoint", s, formatDuration(signalLead*time.Second))
	}
	if d > 365*24*time.Hour {
		return 0, fmt.Errorf("%s is longer than a year", s)
	}
	return int((d + time.Minute - 1) / time.Minute), nil
}

type timeLimitValidator struct{}

func (timeLimitValidator) Description(context.Context) string {
	return `a duration of at least 3m ("12h")`
}
func (v timeLimitValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (timeLimitValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseTimeLimit(req.ConfigValue.ValueString()); err != nil {
		tfutil.AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}
