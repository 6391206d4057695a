package network

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// ensureRouter gives VMs without external IPs a way out: a Cloud Router with one auto-allocated
// NAT for every subnet range, logging errors only (translations would flood Cloud Logging).
func (a *applier) ensureRouter(ctx context.Context) error {
	name := a.d.n.router()
	nat := &computepb.RouterNat{
		Name:                          proto.String(a.d.n.nat()),
		NatIpAllocateOption:           proto.String("AUTO_ONLY"),
		SourceSubnetworkIpRangesToNat: proto.String("ALL_SUBNETWORKS_ALL_IP_RANGES"),
		LogConfig:                     &computepb.RouterNatLogConfig{Enable: proto.Bool(true), Filter: proto.String("ERRORS_ONLY")},
	}
	cur, err := a.findRouter(ctx, name)
	switch {
	case tfutil.IsNotFound(err):
		r := &computepb.Router{
			Name:    proto.String(name),
			Network: proto.String(networkURL(a.d.project, a.d.name)),
			Nats:    []*computepb.RouterNat{nat},
		}
		op, err := a.c.Routers.Insert(ctx, gcp.WithRequestID(&computepb.InsertRouterRequest{Project: a.d.project, Region: a.d.region, RouterResource: r}))
		if err := a.wait(ctx, op, err); err != nil {
			return fmt.Errorf("creating Cloud Router %s with NAT: %w", name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading Cloud Router %s: %w", name, err)
	}
	for _, n := range cur.GetNats() {
		if n.GetName() == a.d.n.nat() {
			return nil
		}
	}
	op, err := a.c.Routers.Patch(ctx, gcp.WithRequestID(&computepb.PatchRouterRequest{
		Project: a.d.project, Region: a.d.region, Router: name,
		RouterResource: &computepb.Router{Nats: append(cur.GetNats(), nat)},
	}))
	if err := a.wait(ctx, op, err); err != nil {
		return fmt.Errorf("adding NAT %s to Cloud Router %s: %w", a.d.n.nat(), name, err)
	}
	return nil
}

func (a *applier) deleteRouter(ctx context.Context) error {
	op, err := a.c.Routers.Delete(ctx, gcp.WithRequestID(&computepb.DeleteRouterRequest{Project: a.d.project, Region: a.d.region, Router: a.d.n.router()}))
	if err := gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("deleting Cloud Router %s: %w", a.d.n.router(), err)
	}
	return nil
}

// pruneRouter deletes the router of a network whose NAT was turned off; when there is none (every
// create without NAT) it sends no DELETE.
func (a *applier) pruneRouter(ctx context.Context) error {
	_, err := a.findRouter(ctx, a.d.n.router())
	switch {
	case tfutil.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading Cloud Router %s: %w", a.d.n.router(), err)
	}
	return a.deleteRouter(ctx)
}
