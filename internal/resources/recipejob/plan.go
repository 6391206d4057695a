package recipejob

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// ValidateConfig refuses what is wrong whatever the cluster: a recipe the
// catalog does not have, a mode that needs a checkpoint to start from
// without one. It makes no API call.
func (r *jobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Recipe.IsNull() || m.Recipe.IsUnknown() {
		return
	}
	var rec recipeModel
	resp.Diagnostics.Append(m.Recipe.As(ctx, &rec, tfutil.ObjectOpts)...)
	if resp.Diagnostics.HasError() || rec.Model.IsUnknown() || rec.Size.IsUnknown() || rec.Mode.IsUnknown() || rec.Custom.IsUnknown() {
		return
	}
	if !rec.Custom.IsNull() {
		validateCustomConfig(ctx, rec, m, &resp.Diagnostics)
		return
	}
	for _, a := range []struct {
		name string
		v    types.String
	}{{"model", rec.Model}, {"size", rec.Size}, {"mode", rec.Mode}} {
		if a.v.IsNull() {
			tfutil.AddInvalid(&resp.Diagnostics, path.Root("recipe").AtName(a.name),
				"a catalog recipe needs model, size and mode (data.hypercompute_recipes lists them); for your own program set recipe.custom instead")
			return
		}
	}
	if attrName, err := checkRecipe(rec); err != nil {
		tfutil.AddInvalid(&resp.Diagnostics, path.Root("recipe").AtName(attrName), err.Error())
		return
	}
	if !m.Overrides.IsNull() && !m.Overrides.IsUnknown() {
		var ov overridesModel
		resp.Diagnostics.Append(m.Overrides.As(ctx, &ov, tfutil.ObjectOpts)...)
		if p := ov.Precision; !p.IsNull() && !p.IsUnknown() {
			if err := precisionAnywhere(rec, p.ValueString()); err != nil {
				tfutil.AddInvalid(&resp.Diagnostics, path.Root("overrides").AtName("precision"), err.Error())
				return
			}
		}
	}
	var ck checkpointModel
	if !m.Checkpoint.IsNull() && !m.Checkpoint.IsUnknown() {
		resp.Diagnostics.Append(m.Checkpoint.As(ctx, &ck, tfutil.ObjectOpts)...)
	}
	if needsResume(rec) && ck.ResumeFrom.IsNull() {
		tfutil.AddInvalid(&resp.Diagnostics, path.Root("checkpoint").AtName("resume_from"),
			fmt.Sprintf("mode %q starts from trained weights: set checkpoint.resume_from to the checkpoint directory to start from", rec.Mode.ValueString()))
	}
}

// specAttrs are the attributes whose change replaces the job: a Slurm job
// cannot be changed once submitted.
var specAttrs = []string{"cluster", "name", "partition", "recipe", "nodes", "overrides", "checkpoint", "tensorboard_dir", "export_path", "time_limit"}

// ModifyPlan resolves the job against its partition with read-only calls
// (the controller's metadata holds the partition's desired configuration):
// the defaults the plan shows, and the checks that need the partition —
// a partition the cluster does not have, more nodes than it holds, a
// recipe its machine family cannot run. A cluster or partition created in
// the same apply is checked at apply.
func (r *jobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// The computed attributes keep their state (UseStateForUnknown): a
	// plan never knows more about the running job than the last refresh.
	var plan, state model
	hasState, ok := tfutil.ReadPlan(ctx, req, resp, &plan, &state, nil)
	if !ok {
		return
	}
	// A second job of the configuration with this name on this cluster fails here.
	tfutil.PlanCreate(ctx, req, r.Provider, ownedKey, &resp.Diagnostics)
	defer func() {
		if hasState {
			requireReplace(ctx, req, resp)
		}
	}()
	// The spec comes from the configuration: there, unknown means a value from another resource
	// not known yet, while the plan also has unknown for every computed default not filled yet.
	var config model
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	s, diags := readSpec(ctx, &config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || !s.complete || r.Provider == nil {
		return
	}
	v, err := readController(ctx, r.Provider.Clients, s.ref)
	if errors.Is(err, tfutil.ErrNoController) && !hasState {
		return
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Unable to read the cluster", "cluster: "+err.Error())
		return
	}
	p, found, err := v.partition(s.partition)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("partition"), "Unable to read the partition", "partition: "+err.Error())
		return
	}
	if !found {
		// A partition a hypercompute_node_partition of this operation plans is created before the
		// job (the job references its name): the job is resolved at apply. A job that stays as it
		// is submits nothing, so a partition gone since is not its plan's business.
		if !r.Provider.Partitions.PlannedSlurm(s.ref.String(), s.partition) && (!hasState || !req.Plan.Raw.Equal(req.State.Raw)) {
			resp.Diagnostics.AddAttributeError(path.Root("partition"), "Unknown partition",
				"partition: "+tfutil.NoPartitionMessage(s.ref, v.md, s.partition, true))
		}
		return
	}
	j, ok := resolve(s, v, p, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(setResolved(ctx, &plan, s.ref, j)...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// requireReplace marks every spec attribute whose planned value differs
// from the state (unknown counts as different) as replacing the job.
func requireReplace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	for _, a := range specAttrs {
		var planned, prior attr.Value
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(a), &planned)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(a), &prior)...)
		if planned == nil || prior == nil || planned.Equal(prior) {
			continue
		}
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root(a))
	}
}
