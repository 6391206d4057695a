package emulatortest

import (
	"context"
	"fmt"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	computeemu "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

// ScopedVM creates a running VM named name in project "p", zone us-central1-a (with the network "net" and its
// subnet, made on first use), whose default service account carries scopes (none at all when scopes is nil:
// a VM without a service account), and returns the host:port of its metadata server, for GCE_METADATA_HOST.
func (e *Env) ScopedVM(t testing.TB, name string, scopes []string) string {
	t.Helper()
	ctx := context.Background()
	opts := e.ClientOptions()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("emulatortest: %s: %v", what, err)
		}
	}
	inst, err := compute.NewInstancesRESTClient(ctx, opts...)
	must("instances client", err)
	defer inst.Close()
	if !e.Server.Store.Exists(computeemu.KindSubnetworks, "projects/p/regions/us-central1/subnetworks/sub") {
		nets, err := compute.NewNetworksRESTClient(ctx, opts...)
		must("networks client", err)
		defer nets.Close()
		subs, err := compute.NewSubnetworksRESTClient(ctx, opts...)
		must("subnetworks client", err)
		defer subs.Close()
		op, err := nets.Insert(ctx, &computepb.InsertNetworkRequest{Project: "p", NetworkResource: &computepb.Network{Name: proto.String("net"), AutoCreateSubnetworks: proto.Bool(false)}})
		must("network", err)
		must("network", op.Wait(ctx))
		op, err = subs.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: "p", Region: "us-central1", SubnetworkResource: &computepb.Subnetwork{
			Name: proto.String("sub"), Network: proto.String("global/networks/net"), IpCidrRange: proto.String("10.8.0.0/24")}})
		must("subnet", err)
		must("subnet", op.Wait(ctx))
	}
	var sas []*computepb.ServiceAccount
	if scopes != nil {
		sas = []*computepb.ServiceAccount{{Email: proto.String("default"), Scopes: scopes}}
	}
	op, err := inst.Insert(ctx, &computepb.InsertInstanceRequest{Project: "p", Zone: "us-central1-a", InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/us-central1-a/machineTypes/n2-standard-4"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/us-central1/subnetworks/sub")}},
		ServiceAccounts:   sas,
	}})
	must("instance "+name, err)
	must("instance "+name, op.Wait(ctx))
	md, ok := e.Server.Component("metadata").(*metadata.Server)
	if !ok {
		t.Fatal("emulatortest: the emulator has no metadata server")
	}
	host, err := md.StartFor(fmt.Sprintf("projects/p/zones/us-central1-a/instances/%s", name))
	must("metadata server of "+name, err)
	return host
}
