package nodepartition

import (
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"

	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

const testProject = "hc-nic-test"

func testClients(t *testing.T, env *emulatortest.Env) *gcp.Clients {
	t.Helper()
	cl, err := gcp.NewClients(context.Background(), gcp.Config{Project: testProject, Region: "us-central1", EmulatorHost: env.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func wait[T interface{ Proto() *computepb.Operation }](t *testing.T, cl *gcp.Clients, o T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(gcp.Classify(err))
	}
	if _, err := cl.WaitComputeOp(context.Background(), o.Proto()); err != nil {
		t.Fatal(err)
	}
}

// makeNetwork creates what hypercompute_network makes for a GPU stack: gVNIC VPCs NET-gpu-<i>
// and, for rdma, NET-rdma on the zone's RoCE profile with subnets NET-rdma-sub-<i>.
func makeNetwork(t *testing.T, cl *gcp.Clients, net string, gvnics, rdmaSubnets int, rdmaZone string) {
	t.Helper()
	ctx := context.Background()
	mk := func(name, profile string) string {
		n := &computepb.Network{Name: proto.String(name), AutoCreateSubnetworks: proto.Bool(false)}
		if profile != "" {
			n.NetworkProfile = proto.String(profile)
		}
		o, err := cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: testProject, NetworkResource: n})
		wait(t, cl, o, err)
		return "projects/" + testProject + "/global/networks/" + name
	}
	sub := func(name, network, cidr string) {
		o, err := cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: testProject, Region: "us-central1",
			SubnetworkResource: &computepb.Subnetwork{Name: proto.String(name), Network: proto.String(network), IpCidrRange: proto.String(cidr)}})
		wait(t, cl, o, err)
	}
	sub(net+"-subnet", mk(net, ""), "10.0.0.0/20")
	for i := 0; i < gvnics; i++ {
		sub(tfutil.GPUSubnetName(net, i), mk(tfutil.GPUNetworkName(net, i), ""), fmt.Sprintf("192.168.%d.0/24", i))
	}
	if rdmaSubnets > 0 {
		r := mk(tfutil.RDMANetworkName(net), "projects/"+testProject+"/global/networkProfiles/"+catalog.RDMANetworkProfile(rdmaZone))
		for i := 0; i < rdmaSubnets; i++ {
			sub(tfutil.RDMASubnetName(net, i), r, fmt.Sprintf("192.168.%d.0/24", 100+i))
		}
	}
}

// Each RDMA machine gets nic0, the host gVNIC and one MRDMA NIC per GPU NIC, on the RDMA VPC's
// subnets in order; a set too small, of another stack or on another zone's profile is refused
// with what to change.
func TestNetworkInterfacesPerFamily(t *testing.T) {
	env := emulatortest.Start(t)
	cl := testClients(t, env)
	makeNetwork(t, cl, "rd", 1, 8, "us-central1-b")
	makeNetwork(t, cl, "tx", 4, 0, "")
	ctx := context.Background()
	link := func(kind, name string) string {
		scope := "global"
		if kind == "subnetworks" {
			scope = "regions/us-central1"
		}
		return "https://www.googleapis.com/compute/v1/projects/" + testProject + "/" + scope + "/" + kind + "/" + name
	}
	for _, tc := range []struct {
		machine, net, zone string
		want               []string // network of each NIC after nic0, with its type
		err                string
	}{
		{machine: "a3-ultragpu-8g", net: "rd", zone: "us-central1-b", want: []string{
			"rd-gpu-0 GVNIC", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA"}},
		{machine: "a4-highgpu-8g", net: "rd", zone: "us-central1-b", want: []string{
			"rd-gpu-0 GVNIC", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA"}},
		{machine: "a4x-highgpu-4g", net: "rd", zone: "us-central1-b", want: []string{"rd-gpu-0 GVNIC", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA", "rd-rdma MRDMA"}},
		{machine: "a3-highgpu-8g", net: "tx", zone: "us-central1-a", want: []string{"tx-gpu-0 GVNIC", "tx-gpu-1 GVNIC", "tx-gpu-2 GVNIC", "tx-gpu-3 GVNIC"}},
		{machine: "g2-standard-48", net: "tx", zone: "us-central1-a", want: nil},
		{machine: "a4-highgpu-8g", net: "tx", zone: "us-central1-b",
			err: `a4-highgpu-8g needs the rdma GPU network set (8 GPU NICs), but network tx has the tcpx set (4 GPU VPCs): add gpu_networks = { stack = "rdma", zone = "us-central1-b", subnet_count = 8 } to the hypercompute_network "tx"`},
		{machine: "a4-highgpu-8g", net: "rd", zone: "us-central1-a", err: "the RDMA VPC rd-rdma is on zone us-central1-b's us-central1-b-vpc-roce profile"},
	} {
		nics, err := networkInterfaces(ctx, cl, mustMachine(t, tc.machine), tc.zone, "us-central1", link("networks", tc.net), link("subnetworks", tc.net+"-subnet"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s on %s: err = %v, want %q", tc.machine, tc.net, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s on %s: %v", tc.machine, tc.net, err)
			continue
		}
		var got []string
		for _, n := range nics[1:] {
			got = append(got, lastSegment(n.GetNetwork())+" "+n.GetNicType())
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s NICs after nic0 = %v, want %v", tc.machine, got, tc.want)
		}
		if tc.machine == "a3-ultragpu-8g" && lastSegment(nics[9].GetSubnetwork()) != "rd-rdma-sub-7" {
			t.Errorf("the 8th RDMA NIC is on %s, want rd-rdma-sub-7", nics[9].GetSubnetwork())
		}
	}
}

func mustMachine(t *testing.T, name string) catalog.MachineType {
	t.Helper()
	m, ok := catalog.Machine(name)
	if !ok {
		t.Fatalf("unknown machine %s", name)
	}
	return m
}
