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
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// replaceHint is the end of every refusal to change an attribute Filestore cannot change in place.
var replaceHint = tfutil.ReplaceHint("Filestore", "hypercompute_filestore")

// ModifyPlan fills in what is knowable before apply (provider defaults, the PSA range, the ID, the
// effective labels) and refuses, with zero API calls, every change that would lose data: a destroy
// while deletion_protection is on, a change of an attribute Filestore cannot update, a shrink the
// tier does not allow.
func (r *filestoreResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state model
	hasState, ok := r.crud().ReadPlan(ctx, req, resp, &plan, &state, "nothing on the share is still needed")
	if !ok {
		return
	}
	r.planDefaults(&plan, &state, hasState, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var share, priorShare shareModel
	var net, priorNet networkModel
	resp.Diagnostics.Append(plan.Share.As(ctx, &share, tfutil.ObjectOpts)...)
	resp.Diagnostics.Append(plan.Network.As(ctx, &net, tfutil.ObjectOpts)...)
	if hasState {
		resp.Diagnostics.Append(state.Share.As(ctx, &priorShare, tfutil.ObjectOpts)...)
		resp.Diagnostics.Append(state.Network.As(ctx, &priorNet, tfutil.ObjectOpts)...)
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
		var configured types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, tfutil.AttrPath("network.reserved_ip_range"), &configured)...)
		planReservedRange(&resp.Diagnostics, hasState, tier, configured, &net, priorNet)
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
		plan.ID = types.StringValue(tfutil.InstanceName(plan.Project.ValueString(), plan.Location.ValueString(), plan.Name.ValueString()))
	}
	if !plan.Protocol.IsUnknown() {
		plan.MountOptions = types.StringValue(mountOptions(plan.Protocol.ValueString()))
	}
	if !hasState {
		plan.IPAddress, plan.MountSource, plan.State = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	plan.EffectiveLabels, d = tfutil.EffectiveLabels(ctx, r.Provider, plan.Labels)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planDefaults resolves project and location from prior state or the provider. The location is a
// zone or a region depending on the tier, so it defaults to the provider's zone or region.
func (r *filestoreResource) planDefaults(plan, state *model, hasState bool, diags *diag.Diagnostics) {
	tfutil.DefaultFromProvider(&plan.Project, state.Project, hasState, r.Provider, "project", diags)
	var provRegion, provZone string
	if r.Provider != nil {
		provRegion, provZone = r.Provider.Region, r.Provider.Zone
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
		case r.Provider != nil:
			diags.AddAttributeError(path.Root("location"), "Missing location",
				fmt.Sprintf("location: set location on the resource, or the provider's %s (tier %s instances live in a %s)", what, plan.Tier.ValueString(), what))
		}
	}
}

func checkImmutable(diags *diag.Diagnostics, plan, state *model, share, priorShare shareModel, net, priorNet networkModel) {
	project := state.Project.ValueString()
	tfutil.CheckImmutable(diags, what, state.ID.ValueString(), replaceHint,
		tfutil.Change{Attr: "name", From: state.Name, To: plan.Name},
		tfutil.Change{Attr: "project", From: state.Project, To: plan.Project},
		tfutil.Change{Attr: "location", From: state.Location, To: plan.Location},
		tfutil.Change{Attr: "tier", From: state.Tier, To: plan.Tier},
		tfutil.Change{Attr: "share.name", From: priorShare.Name, To: share.Name},
		tfutil.Change{Attr: "protocol", From: state.Protocol, To: plan.Protocol},
		tfutil.Change{Attr: "network.name", From: priorNet.Name, To: net.Name, Same: func(a, b string) bool { return tfutil.SameNetwork(a, b, project) }},
		tfutil.Change{Attr: "network.connect_mode", From: priorNet.ConnectMode, To: net.ConnectMode},
		tfutil.Change{Attr: "network.reserved_ip_range", From: priorNet.ReservedIPRange, To: net.ReservedIPRange},
	)
}

func (r *filestoreResource) checkTierRules(diags *diag.Diagnostics, plan *model, tier catalog.FilestoreTier, share, priorShare shareModel, resize bool) {
	if !plan.Location.IsUnknown() && !plan.Location.IsNull() {
		if err := catalog.ValidateFilestoreLocation(tier.Name, plan.Location.ValueString()); err != nil {
			tfutil.AddInvalid(diags, path.Root("location"), err.Error())
		}
	}
	if !share.Name.IsUnknown() && !share.Name.IsNull() {
		if err := catalog.ValidateFilestoreShareName(tier.Name, share.Name.ValueString()); err != nil {
			tfutil.AddInvalid(diags, tfutil.AttrPath("share.name"), err.Error())
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
			// The catalog names the API's field; here it is nested under share.
			tfutil.AddInvalid(diags, tfutil.AttrPath("share.capacity_gb"), strings.Replace(err.Error(), "capacity_gb ", "share.capacity_gb ", 1))
		}
	}
	if !plan.Protocol.IsUnknown() && !plan.Protocol.IsNull() {
		if err := catalog.ValidateFilestoreProtocol(tier.Name, plan.Protocol.ValueString()); err != nil {
			tfutil.AddInvalid(diags, path.Root("protocol"), err.Error())
		}
	}
}

// planReservedRange defaults and checks network.reserved_ip_range: a PSA range name (default
// "<network>-psa", the range hypercompute_network reserves) or a direct-peering CIDR of the tier's size.
// Only a value the configuration sets is checked. Left unset, the range is the prior state's: for an
// instance made without one (imported) that is the CIDR block Filestore allocated, even in PSA mode,
// and it must plan no change.
func planReservedRange(diags *diag.Diagnostics, hasState bool, tier catalog.FilestoreTier, configured types.String, net *networkModel, priorNet networkModel) {
	if net.ConnectMode.IsUnknown() || net.Name.IsUnknown() {
		return
	}
	rng := net.ReservedIPRange
	psa := net.ConnectMode.ValueString() == modePSA
	sameMode := hasState && priorNet.ConnectMode.Equal(net.ConnectMode)
	if configured.IsNull() && sameMode && !priorNet.ReservedIPRange.IsNull() && !priorNet.ReservedIPRange.IsUnknown() {
		net.ReservedIPRange = priorNet.ReservedIPRange
		return
	}
	if rng.IsNull() || rng.IsUnknown() {
		switch {
		case psa:
			if _, name, err := tfutil.ParseNetwork(net.Name.ValueString(), ""); err == nil {
				net.ReservedIPRange = types.StringValue(name + "-psa")
			}
		default:
			net.ReservedIPRange = types.StringUnknown()
		}
		return
	}
	p := tfutil.AttrPath("network.reserved_ip_range")
	v := rng.ValueString()
	if psa {
		if strings.Contains(v, "/") {
			hint := ""
			if sameMode && priorNet.ReservedIPRange.ValueString() == v {
				hint = "; it is the block Filestore allocated for this instance, so leave reserved_ip_range unset to keep it"
			}
			tfutil.AddInvalid(diags, p, fmt.Sprintf("with connect_mode PRIVATE_SERVICE_ACCESS this is the name of an allocated range "+
				"(e.g. hypercompute_network.<name>.private_service_access.range_name), not a CIDR like %q%s", v, hint))
		} else if err := catalog.ValidateResourceName(v); err != nil {
			tfutil.AddInvalid(diags, p, err.Error())
		}
		return
	}
	pf, err := netip.ParsePrefix(v)
	switch {
	case err != nil || !pf.Addr().Is4():
		tfutil.AddInvalid(diags, p, fmt.Sprintf("with connect_mode DIRECT_PEERING this is a CIDR block such as 10.200.0.0/%d; %q is not one", tier.DirectPeeringPrefix, v))
	case pf.Bits() != tier.DirectPeeringPrefix:
		tfutil.AddInvalid(diags, p, fmt.Sprintf("tier %s needs a /%d block for DIRECT_PEERING, got /%d (%s)", tier.Name, tier.DirectPeeringPrefix, pf.Bits(), v))
	case pf.Masked() != pf:
		tfutil.AddInvalid(diags, p, fmt.Sprintf("%q has host bits set; did you mean %s?", v, pf.Masked()))
	case !pf.Addr().IsPrivate():
		tfutil.AddInvalid(diags, p, fmt.Sprintf("%q is not inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)", v))
	}
}
