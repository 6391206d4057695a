package compute_test

import (
	"context"
	"net/netip"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestGlobalAddressAllocation(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")
	insertSubnet(t, c, "vpc", "nodes", "10.0.0.0/16")

	insert := func(name string, prefixLen int32, address string) *computepb.Address {
		t.Helper()
		a := &computepb.Address{Name: proto.String(name), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"),
			PrefixLength: proto.Int32(prefixLen), Network: proto.String("projects/test-project/global/networks/vpc")}
		if address != "" {
			a.Address = proto.String(address)
		}
		op, err := c.addresses.Insert(ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: a})
		wait(t, op, err)
		got, err := c.addresses.Get(ctx, &computepb.GetGlobalAddressRequest{Project: project, Address: name})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a1 := insert("psa-1", 20, "")
	a2 := insert("psa-2", 16, "")
	p1 := netip.MustParsePrefix(a1.GetAddress() + "/20")
	p2 := netip.MustParsePrefix(a2.GetAddress() + "/16")
	subnet := netip.MustParsePrefix("10.0.0.0/16")
	if p1.Masked() != p1 || p2.Masked() != p2 || p1.Overlaps(p2) || p1.Overlaps(subnet) || p2.Overlaps(subnet) {
		t.Errorf("allocated %s and %s (subnet %s): misaligned or overlapping", p1, p2, subnet)
	}
	if a1.GetStatus() != "RESERVED" || a1.GetPrefixLength() != 20 || a1.GetKind() != "compute#address" ||
		a1.GetNetwork() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc" {
		t.Errorf("address = %v", a1)
	}
	a3 := insert("psa-3", 24, "192.168.7.0")
	if a3.GetAddress() != "192.168.7.0" {
		t.Errorf("requested address = %s", a3.GetAddress())
	}
	// A subnet may not take an allocated range.
	_, err := c.subnets.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: "us-central1", SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("clash"), Network: proto.String("global/networks/vpc"), IpCidrRange: proto.String("192.168.7.0/28")}})
	wantHTTPError(t, err, 400, "invalid", "")
	// Nor may another allocation.
	op, err := c.addresses.Insert(ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: &computepb.Address{
		Name: proto.String("psa-4"), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"), PrefixLength: proto.Int32(24),
		Address: proto.String("192.168.7.0"), Network: proto.String("global/networks/vpc")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err == nil {
		t.Error("overlapping requested range was accepted")
	}
	if env.Store().Exists("compute.globalAddresses", "projects/test-project/global/addresses/psa-4") {
		t.Error("failed insert left the address behind")
	}
	_, err = c.addresses.Insert(ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: &computepb.Address{
		Name: proto.String("nolen"), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"), Network: proto.String("global/networks/vpc")}})
	wantHTTPError(t, err, 400, "required", "")

	// The network is in use while the ranges exist.
	op, err = c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "vpc"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err == nil {
		t.Error("network deleted while addresses use it")
	}
	for _, name := range []string{"psa-1", "psa-2", "psa-3"} {
		op, err := c.addresses.Delete(ctx, &computepb.DeleteGlobalAddressRequest{Project: project, Address: name})
		wait(t, op, err)
	}
	_, err = c.addresses.Get(ctx, &computepb.GetGlobalAddressRequest{Project: project, Address: "psa-1"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/global/addresses/psa-1' was not found")
}
