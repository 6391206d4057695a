package network

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// observe reads what exists in the cloud into m (which carries the configuration-only values
// and the timeouts). It reports found=false when the VPC itself is gone. A missing part (subnet,
// range) shows as null values, so the next plan puts it back.
func (a *applier) observe(ctx context.Context, m *model) (found bool, diags diag.Diagnostics) {
	net, err := a.findNetwork(ctx, a.d.name)
	if tfutil.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		diags.AddError("Unable to read network "+a.d.name, err.Error())
		return false, diags
	}
	m.ID = types.StringValue(tfutil.NetworkID(a.d.project, a.d.name))
	m.Name = types.StringValue(net.GetName())
	m.Project = types.StringValue(a.d.project)
	m.Region = types.StringValue(a.d.region)
	m.SelfLink = types.StringValue(net.GetSelfLink())
	m.NetworkID = types.StringValue(strconv.FormatUint(net.GetId(), 10))
	m.MTU = types.Int64Value(int64(net.GetMtu()))
	if desc := userDescription(net.GetDescription()); desc != "" {
		m.Description = types.StringValue(desc)
	} else if !m.Description.IsNull() {
		m.Description = types.StringValue("")
	}

	// Subnet
	sm := subnetModel{CIDR: types.StringNull(), PrivateGoogleAccess: types.BoolNull(), Name: types.StringNull(),
		SelfLink: types.StringNull(), ID: types.StringNull(), GatewayAddress: types.StringNull()}
	sn, err := a.findSubnet(ctx, a.d.region, a.d.n.subnet())
	switch {
	case err == nil:
		sm = subnetModel{
			CIDR: types.StringValue(sn.GetIpCidrRange()), PrivateGoogleAccess: types.BoolValue(sn.GetPrivateIpGoogleAccess()),
			Name: types.StringValue(sn.GetName()), SelfLink: types.StringValue(sn.GetSelfLink()),
			ID: types.StringValue(subnetID(a.d.project, a.d.region, sn.GetName())), GatewayAddress: types.StringValue(sn.GetGatewayAddress()),
		}
	case !tfutil.IsNotFound(err):
		diags.AddError("Unable to read subnetwork "+a.d.n.subnet(), err.Error())
		return true, diags
	}
	var d diag.Diagnostics
	m.Subnet, d = types.ObjectValueFrom(ctx, subnetAttrTypes, sm)
	diags.Append(d...)

	// Firewall rules (one list call for every rule the network may own), router
	owned, err := a.listFirewalls(ctx)
	if err != nil {
		diags.AddError("Unable to list the firewall rules of "+a.d.name, err.Error())
		return true, diags
	}
	var rules []string
	iap := false
	for _, name := range append([]string{a.d.n.fwInternal(), a.d.n.fwIAPSSH()}, a.gpuFirewallCandidates()...) {
		if owned[name] {
			rules = append(rules, name)
			iap = iap || name == a.d.n.fwIAPSSH()
		}
	}
	m.FirewallRules, _ = types.ListValueFrom(ctx, types.StringType, rules)
	m.EnableIAPSSH = types.BoolValue(iap)

	m.EnableNAT, m.RouterName = types.BoolValue(false), types.StringValue("")
	if r, err := a.findRouter(ctx, a.d.n.router()); err == nil {
		for _, n := range r.GetNats() {
			if n.GetName() == a.d.n.nat() {
				m.EnableNAT, m.RouterName = types.BoolValue(true), types.StringValue(r.GetName())
			}
		}
	} else if !tfutil.IsNotFound(err) {
		diags.AddError("Unable to read Cloud Router "+a.d.n.router(), err.Error())
		return true, diags
	}

	diags.Append(a.observePSA(ctx, m)...)
	diags.Append(a.observeGPU(ctx, m)...)
	return true, diags
}

func (a *applier) gpuFirewallCandidates() []string {
	out := make([]string, 0, maxGPUSubnetsTotal)
	for i := range maxGPUSubnetsTotal {
		out = append(out, a.d.n.gpuFW(i))
	}
	return out
}

func (a *applier) observePSA(ctx context.Context, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	prior := psaFrom(ctx, m.PrivateServiceAccess, &diags)
	pm := psaModel{Enabled: types.BoolValue(false), PrefixLength: prior.PrefixLength, Address: prior.Address,
		RangeName: types.StringValue(""), Peering: types.StringValue("")}
	addr, err := a.findGlobalAddress(ctx, a.d.n.psaRange())
	switch {
	case err == nil:
		conn, _, cerr := a.findConnection(ctx)
		if cerr != nil {
			diags.AddError("Unable to read the private service connection of "+a.d.name, cerr.Error())
			return diags
		}
		connected := conn != nil && containsString(conn.ReservedPeeringRanges, addr.GetName())
		pm.Enabled = types.BoolValue(connected)
		pm.PrefixLength = types.Int64Value(int64(addr.GetPrefixLength()))
		pm.Address = types.StringValue(addr.GetAddress())
		pm.RangeName = types.StringValue(addr.GetName())
		if connected {
			pm.Peering = types.StringValue(conn.Peering)
		}
	case !tfutil.IsNotFound(err):
		diags.AddError("Unable to read private service access range "+a.d.n.psaRange(), err.Error())
		return diags
	}
	if pm.PrefixLength.IsNull() || pm.PrefixLength.IsUnknown() {
		pm.PrefixLength = types.Int64Value(20)
	}
	if pm.Address.IsUnknown() {
		pm.Address = types.StringNull()
	}
	obj, d := types.ObjectValueFrom(ctx, psaAttrTypes, pm)
	diags.Append(d...)
	m.PrivateServiceAccess = obj
	return diags
}

// observeGPU rebuilds gpu_networks from the VPCs that exist, so import and drift detection see
// the stack, zone and subnet count that are really there.
func (a *applier) observeGPU(ctx context.Context, m *model) diag.Diagnostics {
	var diags diag.Diagnostics
	nets, err := a.listNetworks(ctx, tfutil.GPUNetworkFilter(a.d.name))
	if err != nil {
		diags.AddError("Unable to list the GPU networks of "+a.d.name, err.Error())
		return diags
	}
	if len(nets) == 0 {
		m.GPUNetworks = types.ObjectNull(gpuNetworksAttrTyp)
		return diags
	}
	subs, err := a.listSubnets(ctx, tfutil.GPUSubnetFilter(a.d.name))
	if err != nil {
		diags.AddError("Unable to list the GPU subnetworks of "+a.d.name, err.Error())
		return diags
	}
	subByName := map[string]*computepb.Subnetwork{}
	for _, s := range subs {
		subByName[s.GetName()] = s
	}
	byName := map[string]*computepb.Network{}
	for _, n := range nets {
		byName[n.GetName()] = n
	}
	var prior gpuNetworksModel
	if !m.GPUNetworks.IsNull() && !m.GPUNetworks.IsUnknown() {
		diags.Append(m.GPUNetworks.As(ctx, &prior, tfutil.ObjectOpts)...)
	}

	var atts []attachment
	var firstCIDR string
	// The GPU subnets' size is the largest of them: a plan for less is a shrink, refused at plan.
	prefix := 0
	size := func(s *computepb.Subnetwork) {
		if p, err := netip.ParsePrefix(s.GetIpCidrRange()); err == nil && (prefix == 0 || p.Bits() < prefix) {
			prefix = p.Bits()
		}
	}
	gv := 0
	for i := range maxGPUSubnetsTotal {
		n, ok := byName[a.d.n.gpuNet(i)]
		if !ok {
			break
		}
		gv++
		s := subByName[a.d.n.gpuSub(i)]
		if s == nil {
			continue
		}
		if firstCIDR == "" {
			firstCIDR = s.GetIpCidrRange()
		}
		size(s)
		atts = append(atts, attachment{n.GetSelfLink(), s.GetSelfLink(), catalog.NICTypeGVNIC})
	}
	stack, zone, rdmaSubs := catalog.NICTCPX, types.StringNull(), 0
	if gv == 8 {
		stack = catalog.NICTCPXO
	}
	if rn, ok := byName[a.d.n.rdmaNet()]; ok {
		stack = catalog.NICRDMA
		if p := rn.GetNetworkProfile(); p != "" {
			z := p[strings.LastIndex(p, "/")+1:]
			zone = types.StringValue(strings.TrimSuffix(z, "-vpc-roce"))
		}
		for i := range maxGPUSubnetsTotal {
			if s := subByName[a.d.n.rdmaSub(i)]; s != nil {
				rdmaSubs++
				if firstCIDR == "" {
					firstCIDR = s.GetIpCidrRange()
				}
				size(s)
				atts = append(atts, attachment{rn.GetSelfLink(), s.GetSelfLink(), catalog.NICTypeMRDMA})
			}
		}
	}
	spec, _ := catalog.NICStackInfo(stack)
	g := gpuNetworksModel{
		Stack: types.StringValue(string(stack)), Zone: zone, MTU: types.Int64Value(int64(spec.MTU)),
		SubnetCount: types.Int64Null(), CIDR: prior.CIDR, SubnetPrefixLength: prior.SubnetPrefixLength,
	}
	if prefix != 0 {
		g.SubnetPrefixLength = types.Int64Value(int64(prefix))
	} else if g.SubnetPrefixLength.IsNull() || g.SubnetPrefixLength.IsUnknown() {
		g.SubnetPrefixLength = types.Int64Value(defaultGPUSubnetPrefix)
	}
	if stack == catalog.NICRDMA {
		g.SubnetCount = types.Int64Value(int64(rdmaSubs))
	}
	if g.CIDR.IsNull() || g.CIDR.IsUnknown() {
		g.CIDR = types.StringValue(cidrBaseGuess(firstCIDR))
	}
	vals := make([]attr.Value, 0, len(atts))
	for _, at := range atts {
		o, d := types.ObjectValue(attachmentAttrTypes, map[string]attr.Value{
			"network": types.StringValue(at.network), "subnetwork": types.StringValue(at.subnetwork), "nic_type": types.StringValue(at.nicType),
		})
		diags.Append(d...)
		vals = append(vals, o)
	}
	g.Attachments, _ = types.ListValue(attachmentType, vals)
	obj, d := types.ObjectValueFrom(ctx, gpuNetworksAttrTyp, g)
	diags.Append(d...)
	m.GPUNetworks = obj
	return diags
}

// cidrBaseGuess recovers the carve-out range on import when only subnets exist: the default if the
// first subnet lies inside it, else that subnet's /16.
func cidrBaseGuess(first string) string {
	if first == "" {
		return defaultGPUCIDR
	}
	if p, err := parseCIDR(defaultGPUCIDR, 8, 24); err == nil {
		if q, err := parseCIDR(first, 8, 29); err == nil && p.Contains(q.Addr()) {
			return defaultGPUCIDR
		}
	}
	parts := strings.Split(first, ".")
	return fmt.Sprintf("%s.%s.0.0/16", parts[0], parts[1])
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
