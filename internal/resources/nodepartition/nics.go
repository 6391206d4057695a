package nodepartition

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// gpuNetworkSet is the GPU network set found next to the cluster network.
type gpuNetworkSet struct {
	gvnic    []attachment // NET-gpu-<i>, in index order
	rdma     []attachment // NET-rdma's subnets, in index order
	rdmaZone string       // zone of the RDMA VPC's network profile
}

type attachment struct{ network, subnetwork string }

// stack names the set the way hypercompute_network's gpu_networks.stack does.
func (s gpuNetworkSet) stack() catalog.NICStack {
	switch {
	case len(s.rdma) > 0:
		return catalog.NICRDMA
	case len(s.gvnic) >= 8:
		return catalog.NICTCPXO
	case len(s.gvnic) > 0:
		return catalog.NICTCPX
	}
	return catalog.NICNone
}

func (s gpuNetworkSet) describe() string {
	switch st := s.stack(); st {
	case catalog.NICNone:
		return "no GPU network set"
	case catalog.NICRDMA:
		return fmt.Sprintf("the rdma set (%d RDMA subnets)", len(s.rdma))
	default:
		return fmt.Sprintf("the %s set (%d GPU VPCs)", st, len(s.gvnic))
	}
}

// networkInterfaces wires one VM of the machine type: nic0 on the cluster's subnet, then for a GPU
// NIC stack the host gVNICs and GPU NICs of the network's GPU network set, in the order and with the
// NIC types catalog.NICStackInfo gives. The network's configuration is only known here, at apply
// (the partition references the cluster, and the cluster's controller names the network), so a
// missing or different set is an error before anything is created.
func networkInterfaces(ctx context.Context, cl *gcp.Clients, m catalog.MachineType, zone, region, network, subnetwork string) ([]*computepb.NetworkInterface, error) {
	primary := &computepb.NetworkInterface{Network: proto.String(network), Subnetwork: proto.String(subnetwork)}
	if m.HasGPU() {
		primary.NicType = proto.String(catalog.NICTypeGVNIC)
	}
	nics := []*computepb.NetworkInterface{primary}
	if m.NICStack == catalog.NICNone {
		return nics, nil
	}
	spec, _ := catalog.NICStackInfo(m.NICStack)
	project, netName, err := tfutil.ParseNetwork(network, "")
	if err != nil {
		return nil, fmt.Errorf("the controller's network %q: %w", network, err)
	}
	set, err := findGPUNetworks(ctx, cl, project, region, netName)
	if err != nil {
		return nil, err
	}
	fix := fmt.Sprintf("add gpu_networks = { stack = %q } to the hypercompute_network %q", m.NICStack, netName)
	if m.NICStack == catalog.NICRDMA {
		fix = fmt.Sprintf("add gpu_networks = { stack = \"rdma\", zone = %q, subnet_count = %d } to the hypercompute_network %q", zone, m.GPUNICCount, netName)
	}
	if set.stack() != m.NICStack {
		return nil, fmt.Errorf("%s needs the %s GPU network set (%d GPU NICs), but network %s has %s: %s",
			m.Name, m.NICStack, m.GPUNICCount, netName, set.describe(), fix)
	}
	var gvnic []attachment
	switch m.NICStack {
	case catalog.NICRDMA:
		if len(set.gvnic) < spec.HostGVNICVPCs {
			return nil, fmt.Errorf("%s needs %d host gVNIC VPC(s) (%s) next to the RDMA VPC; network %s has %d: %s",
				m.Name, spec.HostGVNICVPCs, tfutil.GPUNetworkName(netName, 0), netName, len(set.gvnic), fix)
		}
		if len(set.rdma) < m.GPUNICCount {
			return nil, fmt.Errorf("%s has %d RDMA NICs, one per subnet of %s, which has only %d subnets: set gpu_networks.subnet_count = %d on the hypercompute_network %q",
				m.Name, m.GPUNICCount, tfutil.RDMANetworkName(netName), len(set.rdma), m.GPUNICCount, netName)
		}
		if set.rdmaZone != "" && set.rdmaZone != zone {
			return nil, fmt.Errorf("the RDMA VPC %s is on zone %s's %s profile and RDMA NICs attach only in that zone, but the partition's nodes are in %s: set zone = %q on the partition or gpu_networks.zone = %q on the network",
				tfutil.RDMANetworkName(netName), set.rdmaZone, catalog.RDMANetworkProfile(set.rdmaZone), zone, set.rdmaZone, zone)
		}
		gvnic = set.gvnic[:spec.HostGVNICVPCs]
		for _, a := range gvnic {
			nics = append(nics, nic(a, catalog.NICTypeGVNIC))
		}
		for _, a := range set.rdma[:m.GPUNICCount] {
			nics = append(nics, nic(a, spec.NICType))
		}
	default:
		if len(set.gvnic) < m.GPUNICCount {
			return nil, fmt.Errorf("%s has %d GPU NICs; network %s has %d GPU VPCs: %s", m.Name, m.GPUNICCount, netName, len(set.gvnic), fix)
		}
		for _, a := range set.gvnic[:m.GPUNICCount] {
			nics = append(nics, nic(a, spec.NICType))
		}
	}
	return nics, nil
}

func nic(a attachment, nicType string) *computepb.NetworkInterface {
	return &computepb.NetworkInterface{Network: proto.String(a.network), Subnetwork: proto.String(a.subnetwork), NicType: proto.String(nicType)}
}

// findGPUNetworks lists the network's GPU VPCs and subnets by their derived names: two list calls
// whatever the set's size.
func findGPUNetworks(ctx context.Context, cl *gcp.Clients, project, region, network string) (gpuNetworkSet, error) {
	var set gpuNetworkSet
	nets := map[string]*computepb.Network{}
	it := cl.Networks.List(ctx, &computepb.ListNetworksRequest{Project: project, Filter: proto.String(tfutil.GPUNetworkFilter(network))})
	for {
		n, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return set, fmt.Errorf("listing the GPU networks of %s: %w", network, gcp.Classify(err))
		}
		nets[n.GetName()] = n
	}
	if len(nets) == 0 {
		return set, nil
	}
	subs := map[string]*computepb.Subnetwork{}
	sit := cl.Subnetworks.List(ctx, &computepb.ListSubnetworksRequest{Project: project, Region: region, Filter: proto.String(tfutil.GPUSubnetFilter(network))})
	for {
		s, err := sit.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return set, fmt.Errorf("listing the GPU subnetworks of %s: %w", network, gcp.Classify(err))
		}
		subs[s.GetName()] = s
	}
	for i := 0; i < 8; i++ {
		n, ok := nets[tfutil.GPUNetworkName(network, i)]
		s, sok := subs[tfutil.GPUSubnetName(network, i)]
		if !ok || !sok {
			break
		}
		set.gvnic = append(set.gvnic, attachment{n.GetSelfLink(), s.GetSelfLink()})
	}
	if rn, ok := nets[tfutil.RDMANetworkName(network)]; ok {
		if p := rn.GetNetworkProfile(); p != "" {
			set.rdmaZone = strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], "-vpc-roce")
		}
		for i := 0; i < 8; i++ {
			s, ok := subs[tfutil.RDMASubnetName(network, i)]
			if !ok {
				break
			}
			set.rdma = append(set.rdma, attachment{rn.GetSelfLink(), s.GetSelfLink()})
		}
	}
	return set, nil
}
