package network

import (
	"context"
	"fmt"
	"net/netip"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// ensureVPC creates a custom-mode VPC or brings an existing one's MTU to the wanted value.
// profile is a network profile URL (the zone's vpc-roce profile for RDMA) or "".
func (a *applier) ensureVPC(ctx context.Context, name, description string, mtu int64, profile string) (*computepb.Network, error) {
	cur, err := a.findNetwork(ctx, name)
	if err != nil && !tfutil.IsNotFound(err) {
		return nil, fmt.Errorf("reading network %s: %w", name, err)
	}
	if cur == nil {
		return a.insertVPC(ctx, name, description, mtu, profile)
	}
	if int64(cur.GetMtu()) != mtu {
		op, err := a.c.Networks.Patch(ctx, gcp.WithRequestID(&computepb.PatchNetworkRequest{
			Project: a.d.project, Network: name, NetworkResource: &computepb.Network{Mtu: proto.Int32(int32(mtu))},
		}))
		if err := a.wait(ctx, op, err); err != nil {
			return nil, fmt.Errorf("changing MTU of network %s to %d: %w", name, mtu, err)
		}
		return a.findNetwork(ctx, name)
	}
	return cur, nil
}

// insertVPC creates a custom-mode VPC; one that already exists is an ALREADY_EXISTS error.
func (a *applier) insertVPC(ctx context.Context, name, description string, mtu int64, profile string) (*computepb.Network, error) {
	net := &computepb.Network{
		Name:                  proto.String(name),
		AutoCreateSubnetworks: proto.Bool(false),
		Mtu:                   proto.Int32(int32(mtu)),
		RoutingConfig:         &computepb.NetworkRoutingConfig{RoutingMode: proto.String("REGIONAL")},
	}
	if description != "" {
		net.Description = proto.String(description)
	}
	if profile != "" {
		net.NetworkProfile = proto.String(profile)
	}
	op, err := a.c.Networks.Insert(ctx, gcp.WithRequestID(&computepb.InsertNetworkRequest{Project: a.d.project, NetworkResource: net}))
	if err := a.wait(ctx, op, err); err != nil {
		return nil, fmt.Errorf("creating network %s: %w", name, err)
	}
	return a.findNetwork(ctx, name)
}

// deleteVPC deletes a network; a network that is already gone is not an error.
func (a *applier) deleteVPC(ctx context.Context, name string) error {
	op, err := a.c.Networks.Delete(ctx, gcp.WithRequestID(&computepb.DeleteNetworkRequest{Project: a.d.project, Network: name}))
	if err := gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("deleting network %s: %w", name, err)
	}
	return nil
}

// ensureSubnet creates a subnet or converges an existing one: a wider range with the same start is
// expanded in place (the API's expandIpCidrRange); a narrower one within the current range is
// refused (Compute cannot shrink a subnet); any other range change recreates the subnet, which the
// API refuses with its own message while VMs still use it.
func (a *applier) ensureSubnet(ctx context.Context, region, name, network, cidr string, pga bool) (*computepb.Subnetwork, error) {
	get := func() (*computepb.Subnetwork, error) {
		return a.findSubnet(ctx, region, name)
	}
	cur, err := get()
	if err != nil && !tfutil.IsNotFound(err) {
		return nil, fmt.Errorf("reading subnetwork %s: %w", name, err)
	}
	if cur != nil && cur.GetIpCidrRange() != cidr {
		if expandable(cur.GetIpCidrRange(), cidr) {
			op, err := a.c.Subnetworks.ExpandIpCidrRange(ctx, gcp.WithRequestID(&computepb.ExpandIpCidrRangeSubnetworkRequest{
				Project: a.d.project, Region: region, Subnetwork: name,
				SubnetworksExpandIpCidrRangeRequestResource: &computepb.SubnetworksExpandIpCidrRangeRequest{IpCidrRange: proto.String(cidr)},
			}))
			if err := a.wait(ctx, op, err); err != nil {
				return nil, fmt.Errorf("expanding subnetwork %s to %s: %w", name, cidr, err)
			}
		} else if shrinks(cur.GetIpCidrRange(), cidr) {
			// Recreating would take the addresses of every VM on the subnet; the plan refuses
			// this for the GPU subnets, and a range widened by hand is kept the same way.
			return nil, fmt.Errorf("subnetwork %s is %s, which contains the planned %s: Compute cannot shrink a subnet, and recreating it would cut off the VMs on it; plan a range of at least %s",
				name, cur.GetIpCidrRange(), cidr, cur.GetIpCidrRange())
		} else {
			if err := a.deleteSubnet(ctx, region, name); err != nil {
				return nil, err
			}
			cur = nil
		}
		if cur != nil {
			if cur, err = get(); err != nil {
				return nil, err
			}
		}
	}
	if cur == nil {
		sn := &computepb.Subnetwork{
			Name:                  proto.String(name),
			Network:               proto.String(network),
			IpCidrRange:           proto.String(cidr),
			PrivateIpGoogleAccess: proto.Bool(pga),
		}
		op, err := a.c.Subnetworks.Insert(ctx, gcp.WithRequestID(&computepb.InsertSubnetworkRequest{Project: a.d.project, Region: region, SubnetworkResource: sn}))
		if err := a.wait(ctx, op, err); err != nil {
			return nil, fmt.Errorf("creating subnetwork %s (%s): %w", name, cidr, err)
		}
		return get()
	}
	if cur.GetPrivateIpGoogleAccess() != pga {
		op, err := a.c.Subnetworks.SetPrivateIpGoogleAccess(ctx, gcp.WithRequestID(&computepb.SetPrivateIpGoogleAccessSubnetworkRequest{
			Project: a.d.project, Region: region, Subnetwork: name,
			SubnetworksSetPrivateIpGoogleAccessRequestResource: &computepb.SubnetworksSetPrivateIpGoogleAccessRequest{PrivateIpGoogleAccess: proto.Bool(pga)},
		}))
		if err := a.wait(ctx, op, err); err != nil {
			return nil, fmt.Errorf("setting private Google access on %s: %w", name, err)
		}
		return get()
	}
	return cur, nil
}

func (a *applier) deleteSubnet(ctx context.Context, region, name string) error {
	op, err := a.c.Subnetworks.Delete(ctx, gcp.WithRequestID(&computepb.DeleteSubnetworkRequest{Project: a.d.project, Region: region, Subnetwork: name}))
	if err := gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("deleting subnetwork %s: %w", name, err)
	}
	return nil
}

// expandable reports whether range from can be widened in place to range to: the API only grows a range over the addresses it already has.
func expandable(from, to string) bool {
	f, err1 := netip.ParsePrefix(from)
	t, err2 := netip.ParsePrefix(to)
	return err1 == nil && err2 == nil && t.Bits() < f.Bits() && t.Contains(f.Addr())
}

// shrinks reports whether range to is a part of range from: the subnet would get smaller.
func shrinks(from, to string) bool {
	return expandable(to, from)
}
