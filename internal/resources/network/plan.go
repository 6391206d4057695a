package network

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

type (
	diagnostics = diag.Diagnostics
)

// psaFrom reads private_service_access, applying the defaults when the block is absent.
func psaFrom(ctx context.Context, o types.Object, diags *diag.Diagnostics) psaModel {
	p := psaModel{Enabled: types.BoolValue(true), PrefixLength: types.Int64Value(20), Address: types.StringNull(),
		RangeName: types.StringNull(), Peering: types.StringNull()}
	if o.IsNull() || o.IsUnknown() {
		return p
	}
	diags.Append(o.As(ctx, &p, tfutil.ObjectOpts)...)
	if p.Enabled.IsNull() || p.Enabled.IsUnknown() {
		p.Enabled = types.BoolValue(true)
	}
	if p.PrefixLength.IsNull() || p.PrefixLength.IsUnknown() {
		p.PrefixLength = types.Int64Value(20)
	}
	return p
}

// ModifyPlan fills in everything that is knowable before apply — provider defaults, derived names,
// the GPU layout — so plans show real values instead of "(known after apply)", and checks the
// rules that span attributes. It makes no API calls.
func (r *networkResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state model
	hasState, ok := tfutil.ReadPlan(ctx, req, resp, &plan, &state, nil) // no deletion protection: any destroy goes ahead
	if !ok {
		return
	}
	tfutil.DefaultFromProvider(&plan.Project, state.Project, hasState, r.Provider, "project", &resp.Diagnostics)
	tfutil.DefaultFromProvider(&plan.Region, state.Region, hasState, r.Provider, "region", &resp.Diagnostics)
	var provZone string
	if r.Provider != nil {
		provZone = r.Provider.Zone
	}
	if plan.Name.IsUnknown() || plan.Project.IsUnknown() || plan.Region.IsUnknown() {
		return
	}
	n := names{base: plan.Name.ValueString()}
	project, region := plan.Project.ValueString(), plan.Region.ValueString()
	same := hasState && state.Name.Equal(plan.Name) && state.Project.Equal(plan.Project) && state.Region.Equal(plan.Region)

	plan.ID = types.StringValue(tfutil.NetworkID(project, n.network()))
	plan.SelfLink = types.StringValue(networkURL(project, n.network()))
	if !same {
		plan.NetworkID = types.StringUnknown()
	}

	resp.Diagnostics.Append(r.planSubnet(ctx, &plan, &state, same, n, project, region)...)
	resp.Diagnostics.Append(r.planPSA(ctx, &plan, &state, same, n)...)
	planned := map[string]string{}
	resp.Diagnostics.Append(r.planGPU(ctx, &plan, &state, same, provZone, region, n, planned)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.Provider != nil {
		// Partitions planned after this network check their nodes against these ranges.
		var s subnetModel
		resp.Diagnostics.Append(plan.Subnet.As(ctx, &s, tfutil.ObjectOpts)...)
		if !s.CIDR.IsUnknown() && !s.CIDR.IsNull() {
			planned[subnetID(project, region, n.subnet())] = s.CIDR.ValueString()
		}
		r.Provider.Networks.PlanSubnets(planned)
	}

	if plan.EnableNAT.ValueBool() {
		plan.RouterName = types.StringValue(n.router())
	} else {
		plan.RouterName = types.StringValue("")
	}
	rules := []string{n.fwInternal()}
	if plan.EnableIAPSSH.ValueBool() {
		rules = append(rules, n.fwIAPSSH())
	}
	if !plan.GPUNetworks.IsNull() {
		var g gpuNetworksModel
		resp.Diagnostics.Append(plan.GPUNetworks.As(ctx, &g, tfutil.ObjectOpts)...)
		if !g.Stack.IsUnknown() {
			spec, _ := catalog.NICStackInfo(catalog.NICStack(g.Stack.ValueString()))
			count := spec.GPUVPCs
			if spec.NetworkProfileRequired {
				count = spec.HostGVNICVPCs
			}
			for i := range count {
				rules = append(rules, n.gpuFW(i))
			}
		}
	}
	plan.FirewallRules, _ = types.ListValueFrom(ctx, types.StringType, rules)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *networkResource) planSubnet(ctx context.Context, plan, state *model, same bool, n names, project, region string) diag.Diagnostics {
	var diags diag.Diagnostics
	var s, prior subnetModel
	diags.Append(plan.Subnet.As(ctx, &s, tfutil.ObjectOpts)...)
	if same && !state.Subnet.IsNull() {
		diags.Append(state.Subnet.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	s.Name = types.StringValue(n.subnet())
	s.ID = types.StringValue(subnetID(project, region, n.subnet()))
	s.SelfLink = types.StringValue(tfutil.ComputeV1 + subnetID(project, region, n.subnet()))
	if same && prior.CIDR.Equal(s.CIDR) && !prior.GatewayAddress.IsNull() {
		s.GatewayAddress = prior.GatewayAddress
	} else if p, err := netip.ParsePrefix(s.CIDR.ValueString()); err == nil && !s.CIDR.IsUnknown() {
		// Compute reserves the first address of a primary range for the gateway.
		s.GatewayAddress = types.StringValue(p.Addr().Next().String())
	} else {
		s.GatewayAddress = types.StringUnknown()
	}
	var d diag.Diagnostics
	plan.Subnet, d = types.ObjectValueFrom(ctx, subnetAttrTypes, s)
	diags.Append(d...)
	return diags
}

func (r *networkResource) planPSA(ctx context.Context, plan, state *model, same bool, n names) diag.Diagnostics {
	var diags diag.Diagnostics
	p := psaFrom(ctx, plan.PrivateServiceAccess, &diags)
	var prior psaModel
	if same {
		prior = psaFrom(ctx, state.PrivateServiceAccess, &diags)
	}
	keep := same && prior.Enabled.ValueBool() && p.Enabled.ValueBool() && prior.PrefixLength.Equal(p.PrefixLength)
	if p.Address.IsNull() || p.Address.IsUnknown() {
		if keep && !prior.Address.IsNull() {
			p.Address = prior.Address
		} else if p.Enabled.ValueBool() {
			p.Address = types.StringUnknown()
		} else {
			p.Address = types.StringNull()
		}
	}
	if !p.Address.IsUnknown() && !p.Address.IsNull() && !p.PrefixLength.IsUnknown() {
		a, err := netip.ParseAddr(p.Address.ValueString())
		if err == nil {
			if pf := netip.PrefixFrom(a, int(p.PrefixLength.ValueInt64())); pf.Masked().Addr() != a {
				diags.AddAttributeError(path.Root("private_service_access").AtName("address"), "Invalid private_service_access.address",
					fmt.Sprintf("private_service_access.address: %s is not the first address of a /%d; use %s", a, p.PrefixLength.ValueInt64(), pf.Masked().Addr()))
			}
		}
	}
	if p.Enabled.ValueBool() {
		p.RangeName = types.StringValue(n.psaRange())
		if keep && prior.Peering.ValueString() != "" {
			p.Peering = prior.Peering
		} else {
			p.Peering = types.StringUnknown()
		}
	} else {
		p.RangeName, p.Peering = types.StringValue(""), types.StringValue("")
	}
	var d diag.Diagnostics
	plan.PrivateServiceAccess, d = types.ObjectValueFrom(ctx, psaAttrTypes, p)
	diags.Append(d...)
	return diags
}

// planGPU fills gpu_networks' defaults and checks its layout; planned gets the GPU subnets' ranges.
func (r *networkResource) planGPU(ctx context.Context, plan, state *model, same bool, provZone, region string, n names, planned map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	if plan.GPUNetworks.IsNull() || plan.GPUNetworks.IsUnknown() {
		return diags
	}
	root := path.Root("gpu_networks")
	var g gpuNetworksModel
	diags.Append(plan.GPUNetworks.As(ctx, &g, tfutil.ObjectOpts)...)
	if g.Stack.IsUnknown() {
		return diags
	}
	stack := catalog.NICStack(g.Stack.ValueString())
	spec, ok := catalog.NICStackInfo(stack)
	if !ok {
		return diags // the attribute validator already reported it
	}
	g.MTU = types.Int64Value(int64(spec.MTU))
	if g.CIDR.IsNull() || g.CIDR.IsUnknown() {
		g.CIDR = types.StringValue(defaultGPUCIDR)
	}
	if spec.NetworkProfileRequired {
		if g.Zone.IsNull() || g.Zone.IsUnknown() {
			if provZone == "" {
				diags.AddAttributeError(root.AtName("zone"), "Missing gpu_networks.zone", "gpu_networks.zone: the rdma stack's VPC lives on one zone's vpc-roce network profile: set gpu_networks.zone or the provider's zone")
				return diags
			}
			g.Zone = types.StringValue(provZone)
		}
		if g.SubnetCount.IsNull() || g.SubnetCount.IsUnknown() {
			g.SubnetCount = types.Int64Value(8)
		}
		z, ok := catalog.Zone(g.Zone.ValueString())
		switch {
		case !ok:
			diags.AddAttributeError(root.AtName("zone"), "Invalid gpu_networks.zone", fmt.Sprintf("gpu_networks.zone: %q is not a known zone", g.Zone.ValueString()))
		case z.Region != region:
			diags.AddAttributeError(root.AtName("zone"), "Invalid gpu_networks.zone",
				fmt.Sprintf("gpu_networks.zone %s is in %s, but the network's subnets are in %s", z.Name, z.Region, region))
		case !z.HasRDMAProfile:
			diags.AddAttributeError(root.AtName("zone"), "Invalid gpu_networks.zone",
				fmt.Sprintf("gpu_networks.zone: zone %s has no %s network profile; pick a zone that offers A3 Ultra, A4 or A4X", z.Name, catalog.RDMANetworkProfile(z.Name)))
		}
	} else {
		if !g.Zone.IsNull() && !g.Zone.IsUnknown() {
			diags.AddAttributeError(root.AtName("zone"), "Invalid gpu_networks.zone", fmt.Sprintf("gpu_networks.zone applies to the rdma stack only: the %s stack's VPCs are global; remove gpu_networks.zone", stack))
		}
		if !g.SubnetCount.IsNull() && !g.SubnetCount.IsUnknown() {
			diags.AddAttributeError(root.AtName("subnet_count"), "Invalid gpu_networks.subnet_count",
				fmt.Sprintf("gpu_networks.subnet_count applies to the rdma stack only: the %s stack always has %d VPCs with one subnet each; remove gpu_networks.subnet_count", stack, spec.GPUVPCs))
		}
		g.Zone, g.SubnetCount = types.StringNull(), types.Int64Null()
	}
	if diags.HasError() {
		return diags
	}
	if g.SubnetPrefixLength.IsNull() || g.SubnetPrefixLength.IsUnknown() {
		g.SubnetPrefixLength = types.Int64Value(defaultGPUSubnetPrefix)
	}
	gv, rd, err := gpuLayout(stack, g.CIDR.ValueString(), int(g.SubnetCount.ValueInt64()), int(g.SubnetPrefixLength.ValueInt64()))
	var tooShort prefixError
	switch {
	case errors.As(err, &tooShort):
		diags.AddAttributeError(root.AtName("subnet_prefix_length"), "Invalid gpu_networks.subnet_prefix_length", "gpu_networks.subnet_prefix_length: "+err.Error())
		return diags
	case err != nil:
		diags.AddAttributeError(root.AtName("cidr"), "Invalid gpu_networks.cidr", "gpu_networks.cidr: "+err.Error())
		return diags
	}
	var s subnetModel
	diags.Append(plan.Subnet.As(ctx, &s, tfutil.ObjectOpts)...)
	if primary, err := netip.ParsePrefix(s.CIDR.ValueString()); err == nil {
		for _, c := range slices.Concat(gv, rd) {
			if q := netip.MustParsePrefix(c); q.Overlaps(primary) {
				diags.AddAttributeError(root.AtName("cidr"), "Invalid gpu_networks.cidr",
					fmt.Sprintf("gpu_networks.cidr: GPU subnet %s (carved from %s) overlaps subnet.cidr %s; choose another gpu_networks.cidr", c, g.CIDR.ValueString(), primary))
				return diags
			}
		}
	}
	var prior gpuNetworksModel
	if same && !state.GPUNetworks.IsNull() {
		diags.Append(state.GPUNetworks.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	if refuseShrink(&g, &prior, &diags) {
		return diags
	}
	for i, c := range gv {
		planned[subnetID(plan.Project.ValueString(), region, n.gpuSub(i))] = c
	}
	for i, c := range rd {
		planned[subnetID(plan.Project.ValueString(), region, n.rdmaSub(i))] = c
	}
	// A larger prefix keeps every subnet (expanded in place), so the NIC attachments stay.
	if prior.Stack.Equal(g.Stack) && prior.Zone.Equal(g.Zone) && prior.SubnetCount.Equal(g.SubnetCount) && prior.CIDR.Equal(g.CIDR) && !prior.Attachments.IsNull() {
		g.Attachments = prior.Attachments
	} else {
		g.Attachments = types.ListUnknown(attachmentType)
	}
	var d diag.Diagnostics
	plan.GPUNetworks, d = types.ObjectValueFrom(ctx, gpuNetworksAttrTyp, g)
	diags.Append(d...)
	return diags
}

// ConfigValidators hold the checks that need no provider configuration; ModifyPlan adds the ones
// that depend on provider defaults.
func (r *networkResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return nil
}

var _ attr.Value = types.String{}
