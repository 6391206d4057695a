package network

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

type attachment struct{ network, subnetwork, nicType string }

func profileURL(project, zone string) string {
	return tfutil.ComputeV1 + fmt.Sprintf("projects/%s/global/networkProfiles/%s", project, catalog.RDMANetworkProfile(zone))
}

// ensureGPUNetworks creates the stack's VPCs and subnets and returns the NIC attachments in NIC
// order: gVNIC VPCs first, then one MRDMA NIC per RDMA subnet.
func (a *applier) ensureGPUNetworks(ctx context.Context) ([]attachment, error) {
	g := a.d.gpu
	var out []attachment
	gvMTU := int64(g.spec.MTU)
	if g.spec.NetworkProfileRequired {
		gvMTU = int64(g.spec.HostMTU)
	}
	for i, cidr := range g.gvnic {
		net, err := a.ensureVPC(ctx, a.d.n.gpuNet(i), "hypercompute: "+string(g.stack)+" GPU network", gvMTU, "")
		if err != nil {
			return nil, err
		}
		sn, err := a.ensureSubnet(ctx, a.d.region, a.d.n.gpuSub(i), net.GetSelfLink(), cidr, false)
		if err != nil {
			return nil, err
		}
		out = append(out, attachment{net.GetSelfLink(), sn.GetSelfLink(), catalog.NICTypeGVNIC})
	}
	if len(g.rdma) == 0 {
		return out, nil
	}
	net, err := a.ensureVPC(ctx, a.d.n.rdmaNet(), "hypercompute: RDMA GPU network", int64(g.spec.MTU), profileURL(a.d.project, g.zone))
	if err != nil {
		return nil, err
	}
	for i, cidr := range g.rdma {
		sn, err := a.ensureSubnet(ctx, a.d.region, a.d.n.rdmaSub(i), net.GetSelfLink(), cidr, false)
		if err != nil {
			return nil, err
		}
		out = append(out, attachment{net.GetSelfLink(), sn.GetSelfLink(), g.spec.NICType})
	}
	return out, nil
}

// wantedGPUNames lists the GPU networks and subnets the plan wants, so anything else matching the
// GPU name patterns (left by a previous stack or a larger subnet count) can be removed.
func (a *applier) wantedGPUNames() (nets, subs []string) {
	g := a.d.gpu
	if g == nil {
		return nil, nil
	}
	for i := range g.gvnic {
		nets, subs = append(nets, a.d.n.gpuNet(i)), append(subs, a.d.n.gpuSub(i))
	}
	if len(g.rdma) > 0 {
		nets = append(nets, a.d.n.rdmaNet())
		for i := range g.rdma {
			subs = append(subs, a.d.n.rdmaSub(i))
		}
	}
	return nets, subs
}

// pruneGPUNetworks deletes GPU subnets, firewall rules and VPCs the plan no longer wants
// (all of them on destroy, when keepAll is false and the plan has no gpu set).
func (a *applier) pruneGPUNetworks(ctx context.Context) error {
	wantNets, wantSubs := a.wantedGPUNames()
	subs, err := a.listSubnets(ctx, tfutil.GPUSubnetFilter(a.d.name))
	if err != nil {
		return err
	}
	for _, s := range subs {
		if !slices.Contains(wantSubs, s.GetName()) {
			if err := a.deleteSubnet(ctx, a.d.region, s.GetName()); err != nil {
				return err
			}
		}
	}
	nets, err := a.listNetworks(ctx, tfutil.GPUNetworkFilter(a.d.name))
	if err != nil {
		return err
	}
	for _, n := range nets {
		if slices.Contains(wantNets, n.GetName()) {
			continue
		}
		if m := gpuIndex.FindStringSubmatch(n.GetName()); m != nil {
			if err := a.deleteFirewall(ctx, n.GetName()+"-internal"); err != nil {
				return err
			}
		}
		if err := a.deleteVPC(ctx, n.GetName()); err != nil {
			return err
		}
	}
	return nil
}

var gpuIndex = regexp.MustCompile(`-gpu-([0-7])$`)

func (a *applier) listNetworks(ctx context.Context, filter string) ([]*computepb.Network, error) {
	var out []*computepb.Network
	it := a.c.Networks.List(ctx, &computepb.ListNetworksRequest{Project: a.d.project, Filter: proto.String(filter)})
	for {
		n, err := it.Next()
		if err == iteratorDone {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing networks: %w", gcp.Classify(err))
		}
		out = append(out, n)
	}
}

func (a *applier) listSubnets(ctx context.Context, filter string) ([]*computepb.Subnetwork, error) {
	var out []*computepb.Subnetwork
	it := a.c.Subnetworks.List(ctx, &computepb.ListSubnetworksRequest{Project: a.d.project, Region: a.d.region, Filter: proto.String(filter)})
	for {
		s, err := it.Next()
		if err == iteratorDone {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing subnetworks: %w", gcp.Classify(err))
		}
		out = append(out, s)
	}
}
