package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// subnetUse is one subnet every node of the partition has a NIC in, and what it holds.
type subnetUse struct {
	name, cidr string
	primary    bool
	// others is the most addresses the cluster's other VMs take in it: its controller and login
	// VMs (primary subnet), and every other partition's static and dynamic nodes that use it.
	others int
}

// planSubnets refuses, at plan, a partition whose nodes cannot all get an address: every node
// takes one in the cluster's subnet and one in each GPU subnet its machine type's NIC stack
// attaches to, and Compute refuses a VM whose subnet is full (at a thousand nodes, after the
// first few hundred were made). A partition needs room for all its static and dynamic nodes
// (Slurm creates the dynamic ones later, when nobody is at the keyboard), next to the most the
// cluster's other VMs take. It runs only when the partition grows, and reads, never writes: the
// controller (the cluster's network and other partitions) and the subnets' ranges — taken from a
// network planned in this same operation when there is one (providerdata.PlannedNetworks), since
// its subnets may not exist yet or be about to grow. Anything it cannot learn skips the check;
// the apply's own errors remain. It reports whether it refused.
func (r *partitionResource) planSubnets(ctx context.Context, plan, state *model, hasState bool, ref *cc.ClusterID, diags *diag.Diagnostics) bool {
	if r.Provider == nil || r.Provider.Clients == nil || ref == nil ||
		plan.Name.IsUnknown() || plan.MachineType.IsUnknown() || plan.Zone.IsUnknown() || plan.Zone.IsNull() ||
		plan.StaticNodeCount.IsUnknown() || plan.MaxDynamicNodeCount.IsUnknown() {
		return false
	}
	static, dynamic := int(plan.StaticNodeCount.ValueInt64()), int(plan.MaxDynamicNodeCount.ValueInt64())
	if hasState && !state.StaticNodeCount.IsNull() && !state.MaxDynamicNodeCount.IsNull() &&
		static+dynamic <= int(state.StaticNodeCount.ValueInt64()+state.MaxDynamicNodeCount.ValueInt64()) {
		return false // it does not grow: its nodes have fitted so far
	}
	machine, ok := catalog.Machine(plan.MachineType.ValueString())
	region, _ := catalog.RegionOf(plan.Zone.ValueString())
	if !ok || region == "" {
		return false
	}
	uses, err := r.subnetUses(ctx, *ref, plan.Name.ValueString(), machine, region)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			diags.AddAttributeWarning(pathOf("static_node_count"), "Subnet sizes not checked at plan", err.Error()+"; the apply fails on a full subnet when it gets there.")
		}
		return false
	}
	var lines []string
	attr := "max_dynamic_node_count"
	for _, u := range uses {
		p, err := netip.ParsePrefix(u.cidr)
		if err != nil {
			continue
		}
		free := catalog.SubnetUsableAddresses(p.Bits()) - u.others
		if static+dynamic <= free {
			continue
		}
		if static > free {
			attr = "static_node_count"
		}
		lines = append(lines, fmt.Sprintf("subnetwork %s (%s: %d usable addresses, %d of them for the cluster's other VMs) has room for %d of them; %s",
			u.name, u.cidr, catalog.SubnetUsableAddresses(p.Bits()), u.others, max(free, 0), u.fix(static+dynamic)))
	}
	if len(lines) == 0 {
		return false
	}
	diags.AddAttributeError(pathOf(attr), "The partition does not fit its subnets",
		fmt.Sprintf("%s: the partition's %d nodes (static_node_count %d + max_dynamic_node_count %d) each take an address in every subnet below. Found at plan, before anything is created:\n- %s",
			attr, static+dynamic, static, dynamic, strings.Join(lines, "\n- ")))
	return true
}

// fix says how to make room for n nodes: the smallest range that holds them next to the others.
func (u subnetUse) fix(n int) string {
	bits := catalog.MaxSubnetPrefixLength
	for bits > catalog.MinSubnetPrefixLength && catalog.SubnetUsableAddresses(bits) < n+u.others {
		bits--
	}
	if u.primary {
		return fmt.Sprintf("widen the network's subnet.cidr to a /%d or wider (a wider range that contains the current one grows in place), or lower the node counts", bits)
	}
	return fmt.Sprintf("set gpu_networks.subnet_prefix_length = %d or lower on the network (the subnets grow in place), or lower the node counts", bits)
}

// subnetUses lists the subnets the machine type's nodes take an address in, with their ranges
// and what the cluster's other VMs take there.
func (r *partitionResource) subnetUses(ctx context.Context, ref cc.ClusterID, name string, m catalog.MachineType, region string) ([]subnetUse, error) {
	cl := r.Provider.Clients
	planned, isPlanned := r.Provider.Networks.Cluster(ref.String())
	var ci *clusterInfo
	if !isPlanned || !planned.Creating {
		inst, cfg, err := tfutil.ReadController(ctx, cl, ref)
		switch {
		case err == nil:
			ci = clusterFrom(ref, inst, cfg)
		case !errors.Is(err, tfutil.ErrNoController):
			return nil, err
		}
	}
	var network, primary string
	if isPlanned {
		network, primary = planned.Network, planned.Subnetwork
	} else if ci != nil {
		network, primary = ci.network, ci.subnetwork
	} else {
		return nil, nil // neither planned now nor created: nothing to check against
	}
	project, netName, err := tfutil.ParseNetwork(network, ref.Project)
	if err != nil {
		return nil, nil
	}
	names := append([]string{lastSegment(primary)}, gpuSubnetNames(m, netName)...)
	ranges, err := r.subnetRanges(ctx, project, region, netName, names)
	if err != nil {
		return nil, err
	}
	var uses []subnetUse
	for i, s := range names {
		cidr, ok := ranges[s]
		if !ok {
			continue // not made yet and not planned: the apply reports a missing GPU network set
		}
		u := subnetUse{name: s, cidr: cidr, primary: i == 0}
		if ci != nil {
			if u.primary {
				u.others = 1 + len(ci.cfg.LoginVMs())
			}
			for other, p := range ci.parts {
				om, ok := catalog.Machine(p.MachineType)
				if other == name || !ok {
					continue
				}
				if u.primary || slices.Contains(gpuSubnetNames(om, netName), s) {
					u.others += p.StaticNodes + p.MaxDynamicNodes
				}
			}
		}
		uses = append(uses, u)
	}
	return uses, nil
}

// gpuSubnetNames are the GPU subnets a node of the machine type has a NIC in, by the names
// hypercompute_network gives them: the GPU VPCs' subnets (TCPX, TCPXO), or the host gVNIC VPCs'
// and one RDMA subnet per GPU NIC (RDMA). networkInterfaces wires the same ones.
func gpuSubnetNames(m catalog.MachineType, network string) []string {
	spec, _ := catalog.NICStackInfo(m.NICStack)
	var out []string
	switch m.NICStack {
	case catalog.NICNone:
	case catalog.NICRDMA:
		for i := range spec.HostGVNICVPCs {
			out = append(out, tfutil.GPUSubnetName(network, i))
		}
		for i := range m.GPUNICCount {
			out = append(out, tfutil.RDMASubnetName(network, i))
		}
	default:
		for i := range m.GPUNICCount {
			out = append(out, tfutil.GPUSubnetName(network, i))
		}
	}
	return out
}

// subnetRanges gives the primary range of each named subnet: planned in this operation, else as
// the API has it (one get for the cluster's subnet, one list for the GPU subnets). A subnet
// neither planned nor existing is left out.
func (r *partitionResource) subnetRanges(ctx context.Context, project, region, network string, names []string) (map[string]string, error) {
	out := map[string]string{}
	missingPrimary, missingGPU := false, false
	for i, s := range names {
		if cidr, ok := r.Provider.Networks.SubnetRange(fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", project, region, s)); ok {
			out[s] = cidr
		} else if i == 0 {
			missingPrimary = true
		} else {
			missingGPU = true
		}
	}
	cl := r.Provider.Clients
	if missingPrimary {
		sn, err := cl.Subnetworks.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: region, Subnetwork: names[0]})
		switch sn, err := tfutil.Lookup("subnetwork", names[0], sn, err); {
		case err == nil:
			out[names[0]] = sn.GetIpCidrRange()
		case !tfutil.IsNotFound(err):
			return nil, fmt.Errorf("reading subnetwork %s: %w", names[0], err)
		}
	}
	if missingGPU {
		it := cl.Subnetworks.List(ctx, &computepb.ListSubnetworksRequest{Project: project, Region: region, Filter: proto.String(tfutil.GPUSubnetFilter(network))})
		for {
			sn, err := it.Next()
			if err == iterator.Done {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("listing the GPU subnetworks of %s: %w", network, gcp.Classify(err))
			}
			if _, planned := out[sn.GetName()]; !planned {
				out[sn.GetName()] = sn.GetIpCidrRange()
			}
		}
	}
	return out, nil
}
