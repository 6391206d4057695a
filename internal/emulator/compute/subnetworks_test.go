package compute_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestSubnetworkLifecycle(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")
	op, err := c.subnets.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: "us-central1", SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("nodes"), Network: proto.String("https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc"),
		IpCidrRange:       proto.String("10.10.0.0/20"),
		SecondaryIpRanges: []*computepb.SubnetworkSecondaryRange{{RangeName: proto.String("pods"), IpCidrRange: proto.String("10.20.0.0/16")}},
	}})
	wait(t, op, err)
	if op.Proto().GetRegion() != "https://www.googleapis.com/compute/v1/projects/test-project/regions/us-central1" {
		t.Errorf("regional operation region = %q", op.Proto().GetRegion())
	}
	sub, err := c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.GetGatewayAddress() != "10.10.0.1" || sub.GetFingerprint() == "" || sub.GetKind() != "compute#subnetwork" ||
		sub.GetNetwork() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc" ||
		sub.GetRegion() != "https://www.googleapis.com/compute/v1/projects/test-project/regions/us-central1" {
		t.Errorf("subnet = %v", sub)
	}
	n, _ := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "vpc"})
	if !slices.Contains(n.GetSubnetworks(), sub.GetSelfLink()) {
		t.Errorf("network.subnetworks = %v, want %s", n.GetSubnetworks(), sub.GetSelfLink())
	}

	bad := func(name, cidr, network string, code int, reason, msgPart string) {
		t.Helper()
		_, err := c.subnets.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: "us-central1", SubnetworkResource: &computepb.Subnetwork{
			Name: proto.String(name), Network: proto.String(network), IpCidrRange: proto.String(cidr)}})
		gotCode, gotReason, msg := httpError(t, err)
		if gotCode != code || gotReason != reason || !strings.Contains(msg, msgPart) {
			t.Errorf("insert %s %s: %d %s %q, want %d %s ~%q", name, cidr, gotCode, gotReason, msg, code, reason, msgPart)
		}
	}
	bad("overlap", "10.10.8.0/24", "global/networks/vpc", 400, "invalid", "Invalid IPCidrRange: 10.10.8.0/24 conflicts with existing subnetwork 'nodes' in region 'us-central1'")
	bad("overlap2", "10.20.1.0/24", "global/networks/vpc", 400, "invalid", "secondary range 'pods'")
	bad("hostbits", "10.30.0.1/24", "global/networks/vpc", 400, "invalid", "Invalid IPCidrRange")
	bad("notcidr", "banana", "global/networks/vpc", 400, "invalid", "Invalid IPCidrRange")
	bad("nonet", "10.40.0.0/24", "global/networks/missing", 404, "notFound", "The resource 'projects/test-project/global/networks/missing' was not found")
	bad("nodes", "10.50.0.0/24", "global/networks/vpc", 409, "alreadyExists", "already exists")
	// The same range in another network is fine.
	insertNetwork(t, c, "other")
	insertSubnet(t, c, "other", "nodes2", "10.10.0.0/20")

	// Patch needs the current fingerprint.
	_, err = c.subnets.Patch(ctx, &computepb.PatchSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes",
		SubnetworkResource: &computepb.Subnetwork{PrivateIpGoogleAccess: proto.Bool(true), Fingerprint: proto.String("stale")}})
	wantHTTPError(t, err, 412, "conditionNotMet", "Supplied fingerprint does not match current subnetwork fingerprint.")
	op, err = c.subnets.Patch(ctx, &computepb.PatchSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes",
		SubnetworkResource: &computepb.Subnetwork{PrivateIpGoogleAccess: proto.Bool(true), Fingerprint: sub.Fingerprint}})
	wait(t, op, err)
	patched, _ := c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	if !patched.GetPrivateIpGoogleAccess() || patched.GetFingerprint() == sub.GetFingerprint() || len(patched.GetSecondaryIpRanges()) != 1 {
		t.Errorf("patched subnet = %v", patched)
	}

	op, err = c.subnets.ExpandIpCidrRange(ctx, &computepb.ExpandIpCidrRangeSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes",
		SubnetworksExpandIpCidrRangeRequestResource: &computepb.SubnetworksExpandIpCidrRangeRequest{IpCidrRange: proto.String("10.10.0.0/19")}})
	wait(t, op, err)
	expanded, _ := c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	if expanded.GetIpCidrRange() != "10.10.0.0/19" {
		t.Errorf("expanded range = %s", expanded.GetIpCidrRange())
	}
	_, err = c.subnets.ExpandIpCidrRange(ctx, &computepb.ExpandIpCidrRangeSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes",
		SubnetworksExpandIpCidrRangeRequestResource: &computepb.SubnetworksExpandIpCidrRangeRequest{IpCidrRange: proto.String("10.10.0.0/24")}})
	wantHTTPError(t, err, 400, "invalid", "")

	agg := c.subnets.AggregatedList(ctx, &computepb.AggregatedListSubnetworksRequest{Project: project})
	found := 0
	for {
		pair, err := agg.Next()
		if err != nil {
			break
		}
		if pair.Key == "regions/us-central1" {
			found = len(pair.Value.GetSubnetworks())
		}
	}
	if found != 2 {
		t.Errorf("aggregatedList regions/us-central1 holds %d subnets, want 2", found)
	}

	op, err = c.subnets.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	wait(t, op, err)
	n, _ = c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "vpc"})
	if len(n.GetSubnetworks()) != 0 {
		t.Errorf("network still lists %v", n.GetSubnetworks())
	}
	_, err = c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/regions/us-central1/subnetworks/nodes' was not found")
	_, err = c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "mars-north1", Subnetwork: "nodes"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/regions/mars-north1' was not found")
}
