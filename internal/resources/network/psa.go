package network

import (
	"context"
	"fmt"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	servicenetworking "google.golang.org/api/servicenetworking/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Private service access is two things: a VPC_PEERING global address (the range Google's
// producers allocate from) and one Service Networking connection per network that lists every
// such range. A network may already have a connection (made by another tool for other ranges),
// so ranges are added with UpdateConnection (PATCH connections/- force=true) rather than a second
// CreateConnection, which the API refuses.

func (a *applier) ensurePSA(ctx context.Context) (*computepb.Address, *servicenetworking.Connection, error) {
	addr, err := a.ensurePSARange(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn, err := a.ensureConnection(ctx, a.d.n.psaRange())
	return addr, conn, err
}

func (a *applier) ensurePSARange(ctx context.Context) (*computepb.Address, error) {
	name := a.d.n.psaRange()
	get := func() (*computepb.Address, error) {
		return a.findGlobalAddress(ctx, name)
	}
	cur, err := get()
	if err == nil {
		return cur, nil
	}
	if !tfutil.IsNotFound(err) {
		return nil, fmt.Errorf("reading private service access range %s: %w", name, err)
	}
	ad := &computepb.Address{
		Name:         proto.String(name),
		AddressType:  proto.String("INTERNAL"),
		Purpose:      proto.String("VPC_PEERING"),
		PrefixLength: proto.Int32(int32(a.d.psaPrefix)),
		Network:      proto.String(networkURL(a.d.project, a.d.name)),
		Description:  proto.String("hypercompute: private service access for Filestore and Managed Lustre"),
	}
	if a.d.psaAddress != "" {
		ad.Address = proto.String(a.d.psaAddress)
	}
	op, err := a.c.GlobalAddresses.Insert(ctx, gcp.WithRequestID(&computepb.InsertGlobalAddressRequest{Project: a.d.project, AddressResource: ad}))
	if err := a.wait(ctx, op, err); err != nil {
		return nil, fmt.Errorf("reserving private service access range %s (/%d): %w", name, a.d.psaPrefix, err)
	}
	return get()
}

// consumerNetwork is the network in the project-number form Service Networking uses. The project
// number is read once per applier: a create, read or destroy asks for it several times.
func (a *applier) consumerNetwork(ctx context.Context) (string, error) {
	a.projectNumberOnce.Do(func() {
		p, err := a.c.Projects.Get(ctx, &computepb.GetProjectRequest{Project: a.d.project})
		if err != nil {
			a.projectNumberErr = fmt.Errorf("reading project %s: %w", a.d.project, err)
			return
		}
		a.projectNumber = p.GetId()
	})
	if a.projectNumberErr != nil {
		return "", a.projectNumberErr
	}
	return fmt.Sprintf("projects/%d/global/networks/%s", a.projectNumber, a.d.name), nil
}

func (a *applier) findConnection(ctx context.Context) (*servicenetworking.Connection, string, error) {
	network, err := a.consumerNetwork(ctx)
	if err != nil {
		return nil, "", err
	}
	resp, err := a.c.ServiceNetworking.Services.Connections.List(serviceNetworking).Network(network).Context(ctx).Do()
	if err != nil {
		return nil, network, fmt.Errorf("listing private service connections of %s: %w", a.d.name, gcp.Classify(err))
	}
	for _, c := range resp.Connections {
		// Google answers "services/servicenetworking.googleapis.com"; older answers carry the bare name.
		if c.Service == "services/servicenetworking.googleapis.com" || c.Service == "servicenetworking.googleapis.com" || c.Service == "" {
			return c, network, nil
		}
	}
	return nil, network, nil
}

func (a *applier) ensureConnection(ctx context.Context, rangeName string) (*servicenetworking.Connection, error) {
	cur, network, err := a.findConnection(ctx)
	if err != nil {
		return nil, err
	}
	var op *servicenetworking.Operation
	switch {
	case cur == nil:
		op, err = a.c.ServiceNetworking.Services.Connections.Create(serviceNetworking, &servicenetworking.Connection{
			Network: network, ReservedPeeringRanges: []string{rangeName},
		}).Context(ctx).Do()
	case slices.Contains(cur.ReservedPeeringRanges, rangeName):
		return cur, nil
	default:
		op, err = a.c.ServiceNetworking.Services.Connections.Patch(serviceNetworking+"/connections/-", &servicenetworking.Connection{
			Network: network, ReservedPeeringRanges: append(slices.Clone(cur.ReservedPeeringRanges), rangeName),
		}).UpdateMask("reservedPeeringRanges").Force(true).Context(ctx).Do()
	}
	if err != nil {
		return nil, fmt.Errorf("connecting %s to servicenetworking.googleapis.com: %w", rangeName, gcp.Classify(err))
	}
	if _, err := a.c.WaitServiceNetworkingOp(ctx, op); err != nil {
		return nil, fmt.Errorf("connecting %s to servicenetworking.googleapis.com: %w", rangeName, err)
	}
	cur, _, err = a.findConnection(ctx)
	return cur, err
}

// deletePSA removes this network's range from the connection (deleting the connection when the
// range was its only one), then releases the range. Producers still using the range make the API
// refuse, with its own message, and nothing is deleted — so storage is never cut off silently.
func (a *applier) deletePSA(ctx context.Context) error {
	rangeName := a.d.n.psaRange()
	cur, network, err := a.findConnection(ctx)
	if err != nil && !gcp.IsNotFound(err) {
		return err
	}
	if cur != nil && slices.Contains(cur.ReservedPeeringRanges, rangeName) {
		var op *servicenetworking.Operation
		rest := slices.DeleteFunc(slices.Clone(cur.ReservedPeeringRanges), func(s string) bool { return s == rangeName })
		if len(rest) == 0 {
			name := serviceNetworking + "/connections/" + cur.Peering
			op, err = a.c.ServiceNetworking.Services.Connections.DeleteConnection(name, &servicenetworking.DeleteConnectionRequest{ConsumerNetwork: network}).Context(ctx).Do()
		} else {
			op, err = a.c.ServiceNetworking.Services.Connections.Patch(serviceNetworking+"/connections/-", &servicenetworking.Connection{
				Network: network, ReservedPeeringRanges: rest,
			}).UpdateMask("reservedPeeringRanges").Force(true).Context(ctx).Do()
		}
		if err == nil {
			_, err = a.c.WaitServiceNetworkingOp(ctx, op)
		}
		if err = gcp.IgnoreNotFound(gcp.Classify(err)); err != nil {
			return fmt.Errorf("removing %s from the private service connection: %w", rangeName, err)
		}
	}
	// A range that does not exist (every create without private service access) gets no DELETE.
	if _, err := a.findGlobalAddress(ctx, rangeName); tfutil.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("reading private service access range %s: %w", rangeName, err)
	}
	op, err := a.c.GlobalAddresses.Delete(ctx, gcp.WithRequestID(&computepb.DeleteGlobalAddressRequest{Project: a.d.project, Address: rangeName}))
	if err := gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("releasing private service access range %s: %w", rangeName, err)
	}
	return nil
}
