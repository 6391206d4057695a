package filestore

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// nfsV41Tiers offer NFSv4.1. UNCONFIRMED in the facts; it is Filestore's documented support matrix and
// the emulator's rule. It belongs in the catalog's tier table once that grows a protocol column.
var nfsV41Tiers = map[string]bool{"ZONAL": true, "REGIONAL": true, "ENTERPRISE": true}

// replaceHint is the end of every refusal to change an attribute Filestore cannot change in place.
const replaceHint = "Filestore cannot change it in place, and replacing the instance would destroy the data on it, " +
	"so the provider never does. To move the data, create a new hypercompute_filestore beside this one, copy the data, " +
	"then remove this one (after setting deletion_protection = false)."

// ModifyPlan fills in what is knowable before apply (provider defaults, the PSA range, the ID, the
// effective labels) and refuses, with zero API calls, every change that would lose data: a destroy
// while deletion_protection is on, a change of an attribute Filestore cannot update, a shrink the
// tier does not allow.
func (r *filestoreResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	hasState := !req.State.Raw.IsNull()
	var state model
	if hasState {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if req.Plan.Raw.IsNull() {
		if hasState && state.DeletionProtection.ValueBool() {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
				fmt.Sprintf("deletion_protection: Filestore instance %s is protected and would be destroyed. Set deletion_protection = false "+
					"on it and apply, then destroy it; check first that nothing on the share is still needed.", state.ID.ValueString()))
		}
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.planDefaults(&plan, &state, hasState, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var share, priorShare shareModel
	var net, priorNet networkModel
	resp.Diagnostics.Append(plan.Share.As(ctx, &share, objectOpts)...)
	resp.Diagnostics.Append(plan.Network.As(ctx, &net, objectOpts)...)
	if hasState {
		resp.Diagnostics.Append(state.Share.As(ctx, &priorShare, objectOpts)...)
		resp.Diagnostics.Append(state.Network.As(ctx, &priorNet, objectOpts)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if hasState {
		checkImmutable(&resp.Diagnostics, &plan, &state, share, priorShare, net, priorNet)
	}
	tier, tierKnown := catalog.FilestoreTierByName(plan.Tier.ValueString())
	tierKnown = tierKnown && !plan.Tier.IsUnknown()
	if tierKnown {
		r.checkTierRules(&resp.Diagnostics, &plan, tier, share, priorShare, hasState && priorShare.CapacityGB.ValueInt64() > 0)
		planReservedRange(&resp.Diagnostics, &plan, &state, hasState, tier, &net, priorNet)
	}
	if !plan.DeletionProtectionReason.IsNull() && !plan.DeletionProtectionReason.IsUnknown() && plan.DeletionProtectionReason.ValueString() != "" &&
		!plan.DeletionProtection.IsUnknown() && !plan.DeletionProtection.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("deletion_protection_reason"), "Invalid deletion_protection_reason",
			"deletion_protection_reason: a reason can only be given while deletion_protection = true; remove it or turn protection on")
	}
	if resp.Diagnostics.HasError() {
		return
	}

	var d diag.Diagnostics
	plan.Network, d = types.ObjectValueFrom(ctx, networkAttrTypes, net)
	resp.Diagnostics.Append(d...)
	if !plan.Project.IsUnknown() && !plan.Location.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(instanceID(plan.Project.ValueString(), plan.Location.ValueString(), plan.Name.ValueString()))
	}
	if !plan.Protocol.IsUnknown() {
		plan.MountOptions = types.StringValue(mountOptions(plan.Protocol.ValueString()))
	}
	if !hasState {
		plan.IPAddress, plan.MountSource, plan.State = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	plan.EffectiveLabels, d = effectiveLabels(ctx, r.p, plan.Labels)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planDefaults resolves project and location from prior state or the provider.
func (r *filestoreResource) planDefaults(plan, state *model, hasState bool, diags *diag.Diagnostics) {
	var provProject, provRegion, provZone string
	if r.p != nil {
		provProject, provRegion, provZone = r.p.Project, r.p.Region, r.p.Zone
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
	if plan.Location.IsUnknown() || plan.Location.IsNull() {
		tier, ok := catalog.FilestoreTierByName(plan.Tier.ValueString())
		def, what := provZone, "zone"
		if ok && tier.Regional {
			def, what = provRegion, "region"
		}
		switch {
		case hasState && !state.Location.IsNull():
			plan.Location = state.Location
		case plan.Tier.IsUnknown():
			plan.Location = types.StringUnknown()
		case def != "":
			plan.Location = types.StringValue(def)
		case r.p != nil:
			diags.AddAttributeError(path.Root("location"), "Missing location",
				fmt.Sprintf("location: set location on the resource, or the provider's %s (tier %s instances live in a %s)", what, plan.Tier.ValueString(), what))
		}
	}
}

func checkImmutable(diags *diag.Diagnostics, plan, state *model, share, priorShare shareModel, net, priorNet networkModel) {
	type change struct {
		attr     string
		from, to types.String
		same     func(a, b string) bool
	}
	eq := func(a, b string) bool { return a == b }
	project := state.Project.ValueString()
	changes := []change{
		{"name", state.Name, plan.Name, eq},
		{"project", state.Project, plan.Project, eq},
		{"location", state.Location, plan.Location, eq},
		{"tier", state.Tier, plan.Tier, eq},
		{"share.name", priorShare.Name, share.Name, eq},
		{"protocol", state.Protocol, plan.Protocol, eq},
		{"network.name", priorNet.Name, net.Name, func(a, b string) bool { return sameNetwork(a, b, project) }},
		{"network.connect_mode", priorNet.ConnectMode, net.ConnectMode, eq},
		{"network.reserved_ip_range", priorNet.ReservedIPRange, net.ReservedIPRange, eq},
	}
	for _, c := range changes {
		if c.from.IsNull() || c.from.IsUnknown() || c.to.IsNull() || c.to.IsUnknown() || c.same(c.from.ValueString(), c.to.ValueString()) {
			continue
		}
		diags.AddAttributeError(attrPath(c.attr), "Cannot change "+c.attr,
			fmt.Sprintf("%s: cannot change from %q to %q on Filestore instance %s. %s", c.attr, c.from.ValueString(), c.to.ValueString(), state.ID.ValueString(), replaceHint))
	}
}

func (r *filestoreResource) checkTierRules(diags *diag.Diagnostics, plan *model, tier catalog.FilestoreTier, share, priorShare shareModel, resize bool) {
	if !plan.Location.IsUnknown() && !plan.Location.IsNull() {
		if err := catalog.ValidateFilestoreLocation(tier.Name, plan.Location.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("location"), "Invalid location", withPath("location", err.Error()))
		}
	}
	if !share.Name.IsUnknown() && !share.Name.IsNull() {
		if err := catalog.ValidateFilestoreShareName(tier.Name, share.Name.ValueString()); err != nil {
			diags.AddAttributeError(attrPath("share.name"), "Invalid share.name", withPath("share.name", err.Error()))
		}
	}
	if !share.CapacityGB.IsUnknown() && !share.CapacityGB.IsNull() {
		var err error
		if resize {
			err = catalog.ValidateFilestoreResize(tier.Name, priorShare.CapacityGB.ValueInt64(), share.CapacityGB.ValueInt64())
		} else {
			err = catalog.ValidateFilestoreCapacity(tier.Name, share.CapacityGB.ValueInt64())
		}
		if err != nil {
			msg := strings.Replace(err.Error(), "capacity_gb ", "share.capacity_gb ", 1)
			diags.AddAttributeError(attrPath("share.capacity_gb"), "Invalid share.capacity_gb", withPath("share.capacity_gb", msg))
		}
	}
	if !plan.Protocol.IsUnknown() && plan.Protocol.ValueString() == protocolNFSv41 && !nfsV41Tiers[tier.Name] {
		diags.AddAttributeError(path.Root("protocol"), "Invalid protocol",
			fmt.Sprintf("protocol: NFS_V4_1 is offered by the ZONAL, REGIONAL and ENTERPRISE tiers, not %s; use NFS_V3 or another tier", tier.Name))
	}
}

// planReservedRange defaults and checks network.reserved_ip_range: a PSA range name (default
// "<network>-psa", the range hypercompute_network reserves) or a direct-peering CIDR of the tier's size.
func planReservedRange(diags *diag.Diagnostics, plan, state *model, hasState bool, tier catalog.FilestoreTier, net *networkModel, priorNet networkModel) {
	if net.ConnectMode.IsUnknown() || net.Name.IsUnknown() {
		return
	}
	rng := net.ReservedIPRange
	psa := net.ConnectMode.ValueString() == modePSA
	if rng.IsNull() || rng.IsUnknown() {
		switch {
		case hasState && !priorNet.ReservedIPRange.IsNull() && priorNet.ConnectMode.Equal(net.ConnectMode):
			net.ReservedIPRange = priorNet.ReservedIPRange
		case psa:
			if _, name, err := parseNetwork(net.Name.ValueString(), ""); err == nil {
				net.ReservedIPRange = types.StringValue(name + "-psa")
			}
		default:
			net.ReservedIPRange = types.StringUnknown()
		}
		return
	}
	p := attrPath("network.reserved_ip_range")
	v := rng.ValueString()
	if psa {
		if strings.Contains(v, "/") {
			diags.AddAttributeError(p, "Invalid network.reserved_ip_range",
				fmt.Sprintf("network.reserved_ip_range: with connect_mode PRIVATE_SERVICE_ACCESS this is the name of an allocated range "+
					"(e.g. hypercompute_network.<name>.private_service_access.range_name), not a CIDR like %q", v))
		} else if err := catalog.ValidateResourceName(v); err != nil {
			diags.AddAttributeError(p, "Invalid network.reserved_ip_range", withPath("network.reserved_ip_range", err.Error()))
		}
		return
	}
	pf, err := netip.ParsePrefix(v)
	switch {
	case err != nil || !pf.Addr().Is4():
		diags.AddAttributeError(p, "Invalid network.reserved_ip_range",
			fmt.Sprintf("network.reserved_ip_range: with connect_mode DIRECT_PEERING this is a CIDR block such as 10.200.0.0/%d; %q is not one", tier.DirectPeeringPrefix, v))
	case pf.Bits() != tier.DirectPeeringPrefix:
		diags.AddAttributeError(p, "Invalid network.reserved_ip_range",
			fmt.Sprintf("network.reserved_ip_range: tier %s needs a /%d block for DIRECT_PEERING, got /%d (%s)", tier.Name, tier.DirectPeeringPrefix, pf.Bits(), v))
	case pf.Masked() != pf:
		diags.AddAttributeError(p, "Invalid network.reserved_ip_range",
			fmt.Sprintf("network.reserved_ip_range: %q has host bits set; did you mean %s?", v, pf.Masked()))
	case !pf.Addr().IsPrivate():
		diags.AddAttributeError(p, "Invalid network.reserved_ip_range",
			fmt.Sprintf("network.reserved_ip_range: %q is not inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)", v))
	}
}

// attrPath turns "a.b" into the framework path of a nested attribute.
func attrPath(dotted string) path.Path {
	parts := strings.Split(dotted, ".")
	p := path.Root(parts[0])
	for _, s := range parts[1:] {
		p = p.AtName(s)
	}
	return p
}

func instanceID(project, location, name string) string {
	return fmt.Sprintf("projects/%s/locations/%s/instances/%s", project, location, name)
}
