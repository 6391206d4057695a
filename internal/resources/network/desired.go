package network

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// desired is the plan reduced to plain values: what the network and everything it owns should be.
// Create and Update both reconcile the cloud towards it, so a second apply after a failure or a
// crash converges instead of duplicating.
type desired struct {
	project, region, name, description string
	mtu                                int64
	subnetCIDR                         string
	privateGoogleAccess                bool
	iapSSH, nat                        bool
	psa                                bool
	psaPrefix                          int64
	psaAddress                         string
	gpu                                *gpuDesired
	n                                  names
}

type gpuDesired struct {
	stack catalog.NICStack
	spec  catalog.NICStackSpec
	zone  string
	// gvnic holds one CIDR per gVNIC VPC (<name>-gpu-<i>, one subnet each): the GPU VPCs of
	// TCPX/TCPXO, or the host VPCs of the RDMA stack.
	gvnic []string
	// rdma holds the CIDRs of the RDMA VPC's subnets; empty for TCPX/TCPXO.
	rdma []string
	cidr string
	// prefix is the prefix length of every GPU subnet (gpu_networks.subnet_prefix_length).
	prefix int
}

func (g *gpuDesired) mtu() int64 { return int64(g.spec.MTU) }

// toDesired reads a fully known plan. Defaults that depend on the provider (project, region,
// zone) are resolved in ModifyPlan, so by apply time every value here is known.
func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
	var diags diag.Diagnostics
	d := &desired{
		project: m.Project.ValueString(), region: m.Region.ValueString(), name: m.Name.ValueString(),
		description: m.Description.ValueString(), mtu: m.MTU.ValueInt64(),
		iapSSH: m.EnableIAPSSH.ValueBool(), nat: m.EnableNAT.ValueBool(),
	}
	d.n = names{base: d.name}
	var s subnetModel
	diags.Append(m.Subnet.As(ctx, &s, tfutil.ObjectOpts)...)
	d.subnetCIDR = s.CIDR.ValueString()
	d.privateGoogleAccess = s.PrivateGoogleAccess.IsNull() || s.PrivateGoogleAccess.ValueBool()

	p := psaFrom(ctx, m.PrivateServiceAccess, &diags)
	d.psa, d.psaPrefix, d.psaAddress = p.Enabled.ValueBool(), p.PrefixLength.ValueInt64(), p.Address.ValueString()
	if p.Address.IsUnknown() {
		d.psaAddress = ""
	}

	if !m.GPUNetworks.IsNull() && !m.GPUNetworks.IsUnknown() {
		var g gpuNetworksModel
		diags.Append(m.GPUNetworks.As(ctx, &g, tfutil.ObjectOpts)...)
		stack := catalog.NICStack(g.Stack.ValueString())
		spec, _ := catalog.NICStackInfo(stack)
		gd := &gpuDesired{stack: stack, spec: spec, zone: g.Zone.ValueString(), cidr: g.CIDR.ValueString(), prefix: int(g.SubnetPrefixLength.ValueInt64())}
		if gd.cidr == "" {
			gd.cidr = defaultGPUCIDR
		}
		if gd.prefix == 0 {
			gd.prefix = defaultGPUSubnetPrefix
		}
		gv, rd, err := gpuLayout(stack, gd.cidr, int(g.SubnetCount.ValueInt64()), gd.prefix)
		if err != nil {
			diags.AddError("Invalid gpu_networks", err.Error())
		}
		gd.gvnic, gd.rdma = gv, rd
		d.gpu = gd
	}
	return d, diags
}
