package network

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The reads of the API objects a network is made of; a missing one is a *tfutil.NotFoundError.
// (findConnection, in psa.go, lists Service Networking's connections: a network has one or none.)

func (a *applier) findNetwork(ctx context.Context, name string) (*computepb.Network, error) {
	n, err := a.c.Networks.Get(ctx, &computepb.GetNetworkRequest{Project: a.d.project, Network: name})
	return tfutil.Lookup("network", name, n, err)
}

func (a *applier) findSubnet(ctx context.Context, region, name string) (*computepb.Subnetwork, error) {
	sn, err := a.c.Subnetworks.Get(ctx, &computepb.GetSubnetworkRequest{Project: a.d.project, Region: region, Subnetwork: name})
	return tfutil.Lookup("subnetwork", name, sn, err)
}

func (a *applier) findRouter(ctx context.Context, name string) (*computepb.Router, error) {
	r, err := a.c.Routers.Get(ctx, &computepb.GetRouterRequest{Project: a.d.project, Region: a.d.region, Router: name})
	return tfutil.Lookup("Cloud Router", name, r, err)
}

func (a *applier) findFirewall(ctx context.Context, name string) (*computepb.Firewall, error) {
	fw, err := a.c.Firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: a.d.project, Firewall: name})
	return tfutil.Lookup("firewall rule", name, fw, err)
}

func (a *applier) findGlobalAddress(ctx context.Context, name string) (*computepb.Address, error) {
	ad, err := a.c.GlobalAddresses.Get(ctx, &computepb.GetGlobalAddressRequest{Project: a.d.project, Address: name})
	return tfutil.Lookup("global address", name, ad, err)
}
