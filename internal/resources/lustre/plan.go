package lustre

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// replaceHint is the end of every refusal to change an attribute Managed Lustre cannot change in place.
var replaceHint = tfutil.ReplaceHint("Managed Lustre", "hypercompute_lustre")

// ModifyPlan fills in what is knowable before apply and refuses, with zero API calls, every change
// that would lose data: a destroy while deletion_protection is on, a change of an immutable
// attribute, a shrink.
func (r *lustreResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state model
	hasState, ok := r.crud().ReadPlan(ctx, req, resp, &plan, &state, "no dataset or checkpoint on it is still needed")
	if !ok {
		return
	}
	tfutil.DefaultFromProvider(&plan.Project, state.Project, hasState, r.Provider, "project", &resp.Diagnostics)
	tfutil.DefaultFromProvider(&plan.Zone, state.Zone, hasState, r.Provider, "zone", &resp.Diagnostics)
	if hasState {
		checkImmutable(&resp.Diagnostics, &plan, &state)
	}
	var configured types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("capacity_gib"), &configured)...)
	checkCapacity(&resp.Diagnostics, &plan, &state, hasState, configured.IsNull())
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Project.IsUnknown() && !plan.Zone.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(tfutil.InstanceName(plan.Project.ValueString(), plan.Zone.ValueString(), plan.Name.ValueString()))
	}
	if !hasState {
		plan.MountPoint, plan.MountSource, plan.IPAddress, plan.State = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	var d diag.Diagnostics
	plan.EffectiveLabels, d = tfutil.EffectiveLabels(ctx, r.Provider, plan.Labels)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func checkImmutable(diags *diag.Diagnostics, plan, state *model) {
	project := state.Project.ValueString()
	tfutil.CheckImmutable(diags, what, state.ID.ValueString(), replaceHint,
		tfutil.Change{Attr: "name", From: state.Name, To: plan.Name},
		tfutil.Change{Attr: "project", From: state.Project, To: plan.Project},
		tfutil.Change{Attr: "zone", From: state.Zone, To: plan.Zone},
		tfutil.Change{Attr: "filesystem", From: state.Filesystem, To: plan.Filesystem},
		tfutil.Change{Attr: "network", From: state.Network, To: plan.Network, Same: func(a, b string) bool { return tfutil.SameNetwork(a, b, project) }},
	)
	from, to := state.PerUnitStorageThroughput, plan.PerUnitStorageThroughput
	if !from.IsNull() && !from.IsUnknown() && !to.IsUnknown() && !from.Equal(to) {
		diags.AddAttributeError(path.Root("per_unit_storage_throughput"), "Cannot change per_unit_storage_throughput",
			fmt.Sprintf("per_unit_storage_throughput: cannot change from %d to %d MBps/TiB on %s %s: the throughput tier is fixed at creation. %s",
				from.ValueInt64(), to.ValueInt64(), what, state.ID.ValueString(), replaceHint))
	}
}
