package compute_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestNetworkLifecycle(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()

	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("net-a"), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8896),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := op.Proto().GetStatus(); got != computepb.Operation_RUNNING {
		t.Errorf("insert answered status %v, want RUNNING", got)
	}
	if op.Proto().GetOperationType() != "insert" || op.Proto().GetTargetLink() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/net-a" {
		t.Errorf("operation = %v", op.Proto())
	}
	wait(t, op, nil)

	n, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "net-a"})
	if err != nil {
		t.Fatal(err)
	}
	if n.GetMtu() != 8896 || n.GetKind() != "compute#network" || n.GetAutoCreateSubnetworks() || n.GetRoutingConfig().GetRoutingMode() != "REGIONAL" {
		t.Errorf("network = %v", n)
	}
	if n.GetSelfLink() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/net-a" || n.GetId() == 0 || n.GetCreationTimestamp() == "" {
		t.Errorf("server fields = %q %d %q", n.GetSelfLink(), n.GetId(), n.GetCreationTimestamp())
	}

	it := c.networks.List(ctx, &computepb.ListNetworksRequest{Project: project})
	var names []string
	for {
		n, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, n.GetName())
	}
	if len(names) != 1 || names[0] != "net-a" {
		t.Errorf("list = %v", names)
	}

	op, err = c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "net-a"})
	wait(t, op, err)
	_, err = c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "net-a"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/global/networks/net-a' was not found")
}

// A network's description is set at insert only: a patch that changes it is refused and leaves it,
// while a patch of the MTU alone keeps it.
func TestNetworkDescriptionIsSetAtInsertOnly(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("net-d"), AutoCreateSubnetworks: proto.Bool(false), Description: proto.String("first"),
	}})
	wait(t, op, err)
	_, err = c.networks.Patch(ctx, &computepb.PatchNetworkRequest{Project: project, Network: "net-d", NetworkResource: &computepb.Network{Description: proto.String("second")}})
	wantHTTPError(t, err, 400, "invalid", "Invalid value for field 'resource.description': 'second'. The description of a network can only be set when the network is created.")
	op, err = c.networks.Patch(ctx, &computepb.PatchNetworkRequest{Project: project, Network: "net-d", NetworkResource: &computepb.Network{Mtu: proto.Int32(1500)}})
	wait(t, op, err)
	n, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "net-d"})
	if err != nil {
		t.Fatal(err)
	}
	if n.GetDescription() != "first" || n.GetMtu() != 1500 {
		t.Errorf("after the patches: description %q, MTU %d; want \"first\", 1500", n.GetDescription(), n.GetMtu())
	}
}

func TestNetworkDefaultsAndValidation(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()

	insertNetwork(t, c, "plain")
	n, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	// Created without an MTU, the network answers none (it runs at 1460, which peerings report).
	if n.Mtu != nil || n.Description != nil {
		t.Errorf("a network inserted without mtu and description answers mtu %v, description %v", n.Mtu, n.Description)
	}
	// Compute accepts the numeric id in place of the name.
	byID, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: strconv.FormatUint(n.GetId(), 10)})
	if err != nil || byID.GetName() != "plain" {
		t.Errorf("get by id = %v, %v", byID, err)
	}

	_, err = c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("plain"), AutoCreateSubnetworks: proto.Bool(false)}})
	wantHTTPError(t, err, 409, "alreadyExists", "The resource 'projects/test-project/global/networks/plain' already exists")

	_, err = c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("Bad_Name"), AutoCreateSubnetworks: proto.Bool(false)}})
	wantHTTPError(t, err, 400, "invalid", "Invalid value for field 'resource.name': 'Bad_Name'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'")

	for _, mtu := range []int32{1299, 8897} {
		_, err = c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("m"), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(mtu)}})
		wantHTTPError(t, err, 400, "invalid", "")
	}

	// An RDMA network on the zone's RoCE profile defaults to MTU 8896 and keeps the profile as a URL.
	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("rdma"), AutoCreateSubnetworks: proto.Bool(false),
		NetworkProfile: proto.String("projects/test-project/global/networkProfiles/us-central1-b-vpc-roce"),
	}})
	wait(t, op, err)
	rdma, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "rdma"})
	if err != nil {
		t.Fatal(err)
	}
	if rdma.GetMtu() != 8896 || rdma.GetNetworkProfile() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networkProfiles/us-central1-b-vpc-roce" {
		t.Errorf("rdma network = mtu %d profile %q", rdma.GetMtu(), rdma.GetNetworkProfile())
	}
	// Its subnets must sit in the profile's region.
	_, err = c.subnets.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: "us-east4",
		SubnetworkResource: &computepb.Subnetwork{Name: proto.String("far"), Network: proto.String("global/networks/rdma"), IpCidrRange: proto.String("10.9.0.0/24")}})
	wantHTTPError(t, err, 400, "invalid", "")
	_, err = c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("nope"), AutoCreateSubnetworks: proto.Bool(false), NetworkProfile: proto.String("projects/test-project/global/networkProfiles/us-central1-f-vpc-roce"),
	}})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/global/networkProfiles/us-central1-f-vpc-roce' was not found")

	// Patch changes the MTU and routing mode, but not the subnet mode.
	op, err = c.networks.Patch(ctx, &computepb.PatchNetworkRequest{Project: project, Network: "plain", NetworkResource: &computepb.Network{
		Mtu: proto.Int32(8896), RoutingConfig: &computepb.NetworkRoutingConfig{RoutingMode: proto.String("GLOBAL")},
	}})
	wait(t, op, err)
	n, _ = c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "plain"})
	if n.GetMtu() != 8896 || n.GetRoutingConfig().GetRoutingMode() != "GLOBAL" || n.GetId() != byID.GetId() {
		t.Errorf("patched network = %v", n)
	}
	_, err = c.networks.Patch(ctx, &computepb.PatchNetworkRequest{Project: project, Network: "plain", NetworkResource: &computepb.Network{AutoCreateSubnetworks: proto.Bool(true)}})
	wantHTTPError(t, err, 400, "invalid", "")
}

func TestAutoModeNetworkOwnsItsSubnets(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("auto")}})
	wait(t, op, err)
	n, _ := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "auto"})
	if !n.GetAutoCreateSubnetworks() || len(n.GetSubnetworks()) == 0 {
		t.Fatalf("auto network = %v", n)
	}
	sub, err := c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "auto"})
	if err != nil || sub.GetNetwork() != n.GetSelfLink() {
		t.Fatalf("auto subnet = %v, %v", sub, err)
	}
	op, err = c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "auto"})
	wait(t, op, err)
	if got := env.Inventory().Count("compute.subnetworks"); got != 0 {
		t.Errorf("%d subnets left after deleting the auto-mode network", got)
	}
}

func TestNetworkDeleteRefusedWhileInUse(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "busy")
	insertSubnet(t, c, "busy", "s1", "10.0.0.0/24")

	op, err := c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	err = op.Wait(ctx)
	if err == nil {
		t.Fatal("deleting a network with a subnet succeeded")
	}
	code, _, msg := httpError(t, err)
	if code != 400 || !strings.Contains(msg, "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE") ||
		!strings.Contains(msg, "The network resource 'projects/test-project/global/networks/busy' is already being used by 'projects/test-project/regions/us-central1/subnetworks/s1'") {
		t.Errorf("error = %d %q", code, msg)
	}
	p := op.Proto()
	if p.GetStatus() != computepb.Operation_DONE || p.GetHttpErrorStatusCode() != 400 || p.GetHttpErrorMessage() != "BAD REQUEST" {
		t.Errorf("operation = %v", p)
	}
	if _, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "busy"}); err != nil {
		t.Errorf("network gone after a refused delete: %v", err)
	}

	// Firewalls, routers and allocated ranges hold the network too.
	op, err = c.subnets.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "s1"})
	wait(t, op, err)
	op, err = c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: &computepb.Firewall{
		Name: proto.String("fw"), Network: proto.String("global/networks/busy"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}},
	}})
	wait(t, op, err)
	op, err = c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err == nil || !strings.Contains(err.Error(), "global/firewalls/fw") {
		t.Errorf("delete with a firewall: %v", err)
	}
	op, err = c.firewalls.Delete(ctx, &computepb.DeleteFirewallRequest{Project: project, Firewall: "fw"})
	wait(t, op, err)
	op, err = c.networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: project, Network: "busy"})
	wait(t, op, err)
}

func TestVMNICsHoldNetworkAndSubnet(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")
	insertSubnet(t, c, "vpc", "nodes", "10.0.0.0/24")
	// An instance record as the instances package stores it.
	vm := &computepb.Instance{Name: proto.String("vm"), NetworkInterfaces: []*computepb.NetworkInterface{{
		Network:    proto.String("https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc"),
		Subnetwork: proto.String("https://www.googleapis.com/compute/v1/projects/test-project/regions/us-central1/subnetworks/nodes"),
	}}}
	if err := env.Store().Put("compute.instances", "projects/test-project/zones/us-central1-a/instances/vm", vm); err != nil {
		t.Fatal(err)
	}
	op, err := c.subnets.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: project, Region: "us-central1", Subnetwork: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err == nil || !strings.Contains(err.Error(), "instances/vm") {
		t.Errorf("deleting a subnet a VM uses: %v", err)
	}
}
