package nodepartition

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

type pathType = path.Path

// ModifyPlan fills every value knowable before apply (the zone, provisioning defaults, disks and
// image from the catalog, node names, the placement policy) and refuses impossible combinations,
// naming the attribute. Bad input costs no API call; a configuration that passes every such check has its
// image resolved (one read-only call) so a missing image fails the plan, not the nodes.
func (r *partitionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state model
	hasState, ok := tfutil.ReadPlan(ctx, req, resp, &plan, &state, nil)
	if !ok {
		return
	}
	diags := &resp.Diagnostics
	// A second partition of the configuration with this name on this cluster fails here.
	tfutil.PlanCreate(ctx, req, r.Provider, ownedKey, diags)
	var config model
	diags.Append(req.Config.Get(ctx, &config)...)
	if diags.HasError() {
		return
	}

	var ref *cc.ClusterID
	if !plan.Cluster.IsUnknown() && !plan.Cluster.IsNull() {
		if c, err := cc.ParseClusterID(plan.Cluster.ValueString()); err == nil {
			ref = &c
		}
	}
	if plan.Zone.IsUnknown() || plan.Zone.IsNull() {
		switch {
		case hasState && !state.Zone.IsNull() && state.Cluster.Equal(plan.Cluster):
			plan.Zone = state.Zone
		case ref != nil:
			plan.Zone = types.StringValue(ref.Zone)
		default:
			plan.Zone = types.StringUnknown()
		}
	}
	machine, machineOK := catalog.Machine(plan.MachineType.ValueString())
	machineOK = machineOK && !plan.MachineType.IsUnknown()

	prov := planProvisioning(ctx, &plan, &config, diags)
	if machineOK {
		planDisks(ctx, &plan, &config, machine, diags)
	}
	if diags.HasError() {
		return
	}
	var d diag.Diagnostics
	plan.EffectiveLabels, d = tfutil.EffectiveLabels(ctx, r.Provider, plan.Labels)
	diags.Append(d...)

	for _, p := range check(planValues(ctx, &plan, prov, ref)) {
		diags.AddAttributeError(tfutil.AttrPath(p.attr), "Invalid "+p.attr, p.msg)
	}
	if diags.HasError() {
		return
	}
	// A health policy or a recipe job naming this partition plans after it (it references the
	// name), so the record lets their plan accept a partition the cluster does not have yet; node
	// sets of one Slurm partition are checked against each other (plan_nodesets.go).
	r.planNodeSet(ctx, &plan, ref, !hasState || !req.Plan.Raw.Equal(req.State.Raw), diags)
	r.planStorage(ctx, &plan, ref, !hasState || !req.Plan.Raw.Equal(req.State.Raw), diags)
	if diags.HasError() {
		return
	}
	// Only an image the configuration names is checked: the catalog's default images are the provider's own.
	tfutil.CheckImage(ctx, r.Provider, "image", config.Image, state.Image, diags)
	if diags.HasError() {
		return
	}

	// An update may make a new template (the cluster's agent or network may have changed since), and
	// changes what exists; an unchanged partition keeps what the refresh saw.
	changing := !hasState || !req.Plan.Raw.Equal(req.State.Raw)
	r.planComputed(ctx, &plan, &state, changing, ref)
	if hasState {
		planReplacements(ctx, &plan, &state, resp)
	}
	// A partition its subnets cannot hold is refused on that alone: no reservation or quota read.
	if !r.planSubnets(ctx, &plan, &state, hasState, ref, diags) {
		r.planCalendar(ctx, &plan, prov, ref, diags)
		r.planPreflight(ctx, &plan, &state, hasState, len(resp.RequiresReplace) > 0, prov, ref, diags)
	}
	diags.Append(resp.Plan.Set(ctx, &plan)...)
}

// planProvisioning fills the provisioning block's defaults from the configuration: model
// standard, Spot's DELETE, flex-start's 7 days. It returns the block as filled.
func planProvisioning(ctx context.Context, plan, config *model, diags *diag.Diagnostics) provisioningModel {
	prov := provisioningModel{Model: types.StringNull(), Reservation: types.StringNull(), FutureReservation: types.StringNull(), MaxRunDuration: types.StringNull(), TerminationAction: types.StringNull()}
	if config.Provisioning.IsUnknown() {
		return provisioningModel{Model: types.StringUnknown(), Reservation: types.StringUnknown(), FutureReservation: types.StringUnknown(), MaxRunDuration: types.StringUnknown(), TerminationAction: types.StringUnknown()}
	}
	if !config.Provisioning.IsNull() {
		diags.Append(config.Provisioning.As(ctx, &prov, tfutil.ObjectOpts)...)
	}
	if prov.Model.IsNull() {
		prov.Model = types.StringValue(modelStandard)
	}
	if !prov.Model.IsUnknown() {
		switch prov.Model.ValueString() {
		case modelSpot:
			if prov.TerminationAction.IsNull() {
				prov.TerminationAction = types.StringValue("DELETE")
			}
		case modelFlexStart:
			if prov.MaxRunDuration.IsNull() {
				prov.MaxRunDuration = types.StringValue(formatRunDuration(maxRunDuration))
			}
		}
	}
	obj, d := types.ObjectValueFrom(ctx, provisioningAttrTypes, prov)
	diags.Append(d...)
	plan.Provisioning = obj
	return prov
}

// planDisks fills the boot disk, local SSDs and image the configuration leaves out from the
// catalog.
func planDisks(ctx context.Context, plan, config *model, m catalog.MachineType, diags *diag.Diagnostics) {
	if !config.BootDisk.IsUnknown() {
		boot := bootDiskModel{SizeGB: types.Int64Null(), Type: types.StringNull()}
		if !config.BootDisk.IsNull() {
			diags.Append(config.BootDisk.As(ctx, &boot, tfutil.ObjectOpts)...)
		}
		if boot.SizeGB.IsNull() {
			boot.SizeGB = types.Int64Value(defaultBootDiskGB(m))
		}
		if boot.Type.IsNull() {
			boot.Type = types.StringValue(defaultBootDiskType(m))
		}
		obj, d := types.ObjectValueFrom(ctx, bootDiskAttrTypes, boot)
		diags.Append(d...)
		plan.BootDisk = obj
	}
	if config.LocalSSDCount.IsNull() {
		plan.LocalSSDCount = types.Int64Value(int64(bundledLocalSSDs(m)))
	}
	if config.Image.IsNull() {
		plan.Image = types.StringValue(defaultImage(m))
	}
}

func strPtr(v types.String) *string {
	if v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func intPtr(v types.Int64) *int64 {
	if v.IsUnknown() {
		return nil
	}
	n := v.ValueInt64()
	return &n
}

// planValues gathers what the rules check; unknown values are nil and checked at apply.
func planValues(ctx context.Context, plan *model, prov provisioningModel, ref *cc.ClusterID) values {
	v := values{
		name: strPtr(plan.Name), machineType: strPtr(plan.MachineType), zone: strPtr(plan.Zone),
		static: intPtr(plan.StaticNodeCount), dynamic: intPtr(plan.MaxDynamicNodeCount),
		model: strPtr(prov.Model), reservation: strPtr(prov.Reservation), futureRes: strPtr(prov.FutureReservation), maxRun: strPtr(prov.MaxRunDuration),
		termination: strPtr(prov.TerminationAction), image: strPtr(plan.Image), localSSDs: intPtr(plan.LocalSSDCount),
	}
	if plan.Zone.IsNull() {
		v.zone = nil
	}
	if ref != nil {
		v.clusterName, v.clusterZone = &ref.Name, &ref.Zone
	}
	compact := false
	switch {
	case plan.Placement.IsUnknown():
		v.compact = nil
	case plan.Placement.IsNull():
		v.compact = &compact
	default:
		var pl placementModel
		_ = plan.Placement.As(ctx, &pl, tfutil.ObjectOpts)
		if !pl.Compact.IsUnknown() {
			compact = pl.Compact.ValueBool()
			v.compact = &compact
		}
	}
	if !plan.Labels.IsUnknown() {
		v.labels, _ = tfutil.LabelMap(ctx, plan.Labels)
	}
	return v
}

// planComputed fills the derived names, and keeps the observed values while nothing changes them.
func (r *partitionResource) planComputed(ctx context.Context, plan, state *model, changing bool, ref *cc.ClusterID) {
	countsKnown := !plan.StaticNodeCount.IsUnknown() && !plan.MaxDynamicNodeCount.IsUnknown()
	if ref != nil && !plan.Name.IsUnknown() {
		name := plan.Name.ValueString()
		plan.ID = types.StringValue(partitionID(*ref, name))
		plan.NodeNamePrefix = types.StringValue(cc.NodeNamePrefix(ref.Name, name))
		if countsKnown {
			p := cc.Partition{Name: name, StaticNodes: int(plan.StaticNodeCount.ValueInt64()), MaxDynamicNodes: int(plan.MaxDynamicNodeCount.ValueInt64())}
			plan.StaticNodeNames = types.StringValue(p.StaticNodeNames(ref.Name))
			plan.DynamicNodeNames = types.StringValue(p.DynamicNodeNames(ref.Name))
		} else {
			plan.StaticNodeNames, plan.DynamicNodeNames = types.StringUnknown(), types.StringUnknown()
		}
	} else {
		plan.ID, plan.NodeNamePrefix = types.StringUnknown(), types.StringUnknown()
		plan.StaticNodeNames, plan.DynamicNodeNames = types.StringUnknown(), types.StringUnknown()
	}

	plan.PlacementPolicy = types.StringValue("")
	if !plan.Placement.IsNull() {
		var pl placementModel
		_ = plan.Placement.As(ctx, &pl, tfutil.ObjectOpts)
		zone, _ := catalog.RegionOf(plan.Zone.ValueString())
		switch {
		case plan.Placement.IsUnknown() || pl.Compact.IsUnknown() || ref == nil || plan.Zone.IsUnknown() || plan.Name.IsUnknown():
			plan.PlacementPolicy = types.StringUnknown()
		case pl.Compact.ValueBool():
			plan.PlacementPolicy = types.StringValue(fmt.Sprintf("%sprojects/%s/regions/%s/resourcePolicies/%s",
				computeV1, ref.Project, zone, placementPolicyName(cc.NodeNamePrefix(ref.Name, plan.Name.ValueString()))))
		}
	}

	if changing {
		plan.InstanceTemplate = types.StringUnknown()
		plan.NodesTotal, plan.NodesRunning, plan.NodeNames = types.Int64Unknown(), types.Int64Unknown(), types.StringUnknown()
		plan.NodesFailed = types.ListUnknown(nodeFailureType)
	} else {
		plan.InstanceTemplate = state.InstanceTemplate
		plan.NodesTotal, plan.NodesRunning, plan.NodeNames = state.NodesTotal, state.NodesRunning, state.NodeNames
		plan.NodesFailed = state.NodesFailed
	}
	// An empty template in the state is drift the refresh found (the partition's key or its template
	// is gone): the apply puts it back.
	if state.InstanceTemplate.ValueString() == "" && !changing {
		plan.InstanceTemplate = types.StringUnknown()
	}
}

// planReplacements marks the attributes whose change makes new VMs: Compute cannot change a VM's
// machine type, zone, provisioning, disks or image in place, and a partition's nodes must all be
// alike. It compares after the defaults are filled, so a default never looks like a change.
func planReplacements(ctx context.Context, plan, state *model, resp *resource.ModifyPlanResponse) {
	changed := func(a, b attr.Value) bool { return !a.IsUnknown() && !b.IsNull() && !a.Equal(b) }
	if changed(plan.Zone, state.Zone) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("zone"))
	}
	if changed(plan.BootDisk, state.BootDisk) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("boot_disk"))
	}
	if changed(plan.LocalSSDCount, state.LocalSSDCount) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("local_ssd_count"))
	}
	if changed(plan.Image, state.Image) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("image"))
	}
	if plan.Provisioning.IsUnknown() || state.Provisioning.IsNull() {
		return
	}
	var a, b provisioningModel
	_ = plan.Provisioning.As(ctx, &a, tfutil.ObjectOpts)
	_ = state.Provisioning.As(ctx, &b, tfutil.ObjectOpts)
	da, _ := parseRunDuration(a.MaxRunDuration.ValueString())
	db, _ := parseRunDuration(b.MaxRunDuration.ValueString())
	if changed(a.Model, b.Model) || a.Reservation.ValueString() != b.Reservation.ValueString() ||
		da != db || a.TerminationAction.ValueString() != b.TerminationAction.ValueString() {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("provisioning"))
	}
}
