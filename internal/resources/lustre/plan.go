package lustre

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// replaceHint is the end of every refusal to change an attribute Managed Lustre cannot change in place.
const replaceHint = "Managed Lustre cannot change it in place, and replacing the instance would destroy the data on it, " +
	"so the provider never does. To move the data, create a new hypercompute_lustre beside this one, copy the data, " +
	"then remove this one (after setting deletion_protection = false)."

// ModifyPlan fills in what is knowable before apply and refuses, with zero API calls, every change
// that would lose data: a destroy while deletion_protection is on, a change of an immutable
// attribute, a shrink.
func (r *lustreResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	hasState := !req.State.Raw.IsNull()
	var state model
	if hasState {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if req.Plan.Raw.IsNull() {
		if hasState && state.DeletionProtection.ValueBool() {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
				fmt.Sprintf("deletion_protection: Managed Lustre instance %s is protected and would be destroyed. Set deletion_protection = false "+
					"on it and apply, then destroy it; check first that no dataset or checkpoint on it is still needed.", state.ID.ValueString()))
		}
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.planDefaults(&plan, &state, hasState, &resp.Diagnostics)
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
		plan.ID = types.StringValue(instanceID(plan.Project.ValueString(), plan.Zone.ValueString(), plan.Name.ValueString()))
	}
	if !hasState {
		plan.MountPoint, plan.MountSource, plan.IPAddress, plan.State = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	var d diag.Diagnostics
	plan.EffectiveLabels, d = effectiveLabels(ctx, r.p, plan.Labels)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *lustreResource) planDefaults(plan, state *model, hasState bool, diags *diag.Diagnostics) {
	var provProject, provZone string
	if r.p != nil {
		provProject, provZone = r.p.Project, r.p.Zone
	}
	if plan.Project.IsUnknown() || plan.Project.IsNull() {
		switch {
		case hasState && !state.Project.IsNull():
			plan.Project = state.Project
		case provProject != "":
			plan.Project = types.StringValue(provProject)
		case r.p != nil:
			diags.AddAttributeError(path.Root("project"), "Missing project", "project: set project on the resource or the provider, or export GOOGLE_PROJECT")
		}
	}
	if plan.Zone.IsUnknown() || plan.Zone.IsNull() {
		switch {
		case hasState && !state.Zone.IsNull():
			plan.Zone = state.Zone
		case provZone != "":
			plan.Zone = types.StringValue(provZone)
		case r.p != nil:
			diags.AddAttributeError(path.Root("zone"), "Missing zone", "zone: set zone on the resource or the provider, or export GOOGLE_ZONE")
		}
	}
}

func checkImmutable(diags *diag.Diagnostics, plan, state *model) {
	project := state.Project.ValueString()
	str := func(attr string, from, to types.String, same func(a, b string) bool) {
		if from.IsNull() || from.IsUnknown() || to.IsNull() || to.IsUnknown() || same(from.ValueString(), to.ValueString()) {
			return
		}
		diags.AddAttributeError(path.Root(attr), "Cannot change "+attr,
			fmt.Sprintf("%s: cannot change from %q to %q on Managed Lustre instance %s. %s", attr, from.ValueString(), to.ValueString(), state.ID.ValueString(), replaceHint))
	}
	eq := func(a, b string) bool { return a == b }
	str("name", state.Name, plan.Name, eq)
	str("project", state.Project, plan.Project, eq)
	str("zone", state.Zone, plan.Zone, eq)
	str("filesystem", state.Filesystem, plan.Filesystem, eq)
	str("network", state.Network, plan.Network, func(a, b string) bool { return sameNetwork(a, b, project) })
	from, to := state.PerUnitStorageThroughput, plan.PerUnitStorageThroughput
	if !from.IsNull() && !from.IsUnknown() && !to.IsUnknown() && !from.Equal(to) {
		diags.AddAttributeError(path.Root("per_unit_storage_throughput"), "Cannot change per_unit_storage_throughput",
			fmt.Sprintf("per_unit_storage_throughput: cannot change from %d to %d MBps/TiB on Managed Lustre instance %s: the throughput tier is fixed at creation. %s",
				from.ValueInt64(), to.ValueInt64(), state.ID.ValueString(), replaceHint))
	}
}

// checkCapacity checks capacity_gib against the throughput tier's table, and on an existing instance
// that it does not shrink.
func checkCapacity(diags *diag.Diagnostics, plan, state *model, hasState, defaulted bool) {
	tp, gib := plan.PerUnitStorageThroughput, plan.CapacityGiB
	if tp.IsUnknown() || gib.IsUnknown() || tp.IsNull() || gib.IsNull() {
		return
	}
	if _, ok := catalog.LustreTierFor(tp.ValueInt64()); !ok {
		return // the attribute validator already named it
	}
	var err error
	if hasState && !state.CapacityGiB.IsNull() && state.CapacityGiB.ValueInt64() > 0 && state.PerUnitStorageThroughput.Equal(tp) {
		err = catalog.ValidateLustreResize(tp.ValueInt64(), state.CapacityGiB.ValueInt64(), gib.ValueInt64())
	} else {
		err = catalog.ValidateLustreCapacity(tp.ValueInt64(), gib.ValueInt64())
	}
	if err != nil {
		msg := withPath("capacity_gib", err.Error())
		if defaulted {
			msg += fmt.Sprintf(" (%d GiB is the default; set capacity_gib for this throughput tier)", gib.ValueInt64())
		}
		diags.AddAttributeError(path.Root("capacity_gib"), "Invalid capacity_gib", msg)
	}
}

func instanceID(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/locations/%s/instances/%s", project, zone, name)
}
