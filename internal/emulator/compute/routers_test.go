package compute_test

import (
	"context"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestRouterWithNAT(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")
	insertSubnet(t, c, "vpc", "nodes", "10.0.0.0/24")

	op, err := c.routers.Insert(ctx, &computepb.InsertRouterRequest{Project: project, Region: "us-central1", RouterResource: &computepb.Router{
		Name: proto.String("rtr"), Network: proto.String("global/networks/vpc"),
		Nats: []*computepb.RouterNat{{
			Name: proto.String("nat"), NatIpAllocateOption: proto.String("AUTO_ONLY"),
			SourceSubnetworkIpRangesToNat: proto.String("LIST_OF_SUBNETWORKS"),
			Subnetworks:                   []*computepb.RouterNatSubnetworkToNat{{Name: proto.String("nodes")}},
		}},
	}})
	wait(t, op, err)
	rt, err := c.routers.Get(ctx, &computepb.GetRouterRequest{Project: project, Region: "us-central1", Router: "rtr"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.GetNats()) != 1 || rt.GetNats()[0].GetSubnetworks()[0].GetName() != "https://www.googleapis.com/compute/v1/projects/test-project/regions/us-central1/subnetworks/nodes" ||
		rt.GetKind() != "compute#router" || rt.GetNetwork() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc" {
		t.Errorf("router = %v", rt)
	}

	// A subnet a NAT names cannot be deleted.
	op, err = c.subnets.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err == nil {
		t.Error("deleting a subnet used by a NAT succeeded")
	}

	op, err = c.routers.Patch(ctx, &computepb.PatchRouterRequest{Project: project, Region: "us-central1", Router: "rtr", RouterResource: &computepb.Router{
		Nats: []*computepb.RouterNat{{Name: proto.String("nat2"), NatIpAllocateOption: proto.String("AUTO_ONLY"), SourceSubnetworkIpRangesToNat: proto.String("ALL_SUBNETWORKS_ALL_IP_RANGES")}},
	}})
	wait(t, op, err)
	rt, _ = c.routers.Get(ctx, &computepb.GetRouterRequest{Project: project, Region: "us-central1", Router: "rtr"})
	if len(rt.GetNats()) != 1 || rt.GetNats()[0].GetName() != "nat2" {
		t.Errorf("patched nats = %v", rt.GetNats())
	}

	_, err = c.routers.Insert(ctx, &computepb.InsertRouterRequest{Project: project, Region: "us-central1", RouterResource: &computepb.Router{
		Name: proto.String("bad"), Network: proto.String("global/networks/vpc"),
		Nats: []*computepb.RouterNat{{Name: proto.String("n"), NatIpAllocateOption: proto.String("SOMETIMES"), SourceSubnetworkIpRangesToNat: proto.String("ALL_SUBNETWORKS_ALL_IP_RANGES")}},
	}})
	wantHTTPError(t, err, 400, "invalid", "")

	op, err = c.routers.Delete(ctx, &computepb.DeleteRouterRequest{Project: project, Region: "us-central1", Router: "rtr"})
	wait(t, op, err)
	_, err = c.routers.Get(ctx, &computepb.GetRouterRequest{Project: project, Region: "us-central1", Router: "rtr"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/regions/us-central1/routers/rtr' was not found")
}
