package acctest

import (
	"context"
	"fmt"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// APICluster is a training cluster made through the API, as hypercompute_training_cluster and
// hypercompute_node_partition leave it, for the API-only tests of resources that build on one: a
// network with a subnet, and a controller VM whose metadata holds c's configuration and a
// partition key for each of parts. It returns the cluster's id.
func (e *Env) APICluster(t *testing.T, c cc.Cluster, parts []cc.Partition) string {
	t.Helper()
	ctx := context.Background()
	cl := e.Clients()
	network := c.Name + "-net"
	wait := func(o *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.WaitCompute(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	wait(cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: Project, NetworkResource: &computepb.Network{
		Name: proto.String(network), AutoCreateSubnetworks: proto.Bool(false)}}))
	wait(cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: Project, Region: Region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String(network + "-subnet"), Network: proto.String("projects/" + Project + "/global/networks/" + network), IpCidrRange: proto.String("10.0.0.0/16")}}))
	cfg, err := cc.EncodeCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	items := []*computepb.Items{
		{Key: proto.String(cc.ClusterKey), Value: proto.String(string(cfg))},
		{Key: proto.String(cc.GuestAttributesKey), Value: proto.String("TRUE")},
	}
	for _, p := range parts {
		b, err := cc.EncodePartition(c.Name, p)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, &computepb.Items{Key: proto.String(cc.PartitionKey(p.Name)), Value: proto.String(string(b))})
	}
	wait(cl.Instances.Insert(ctx, &computepb.InsertInstanceRequest{Project: Project, Zone: Zone, InstanceResource: &computepb.Instance{
		Name: proto.String(cc.ControllerName(c.Name)), MachineType: proto.String("n2-standard-8"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + Region + "/subnetworks/" + network + "-subnet")}},
		Metadata:          &computepb.Metadata{Items: items},
	}}))
	return fmt.Sprintf("projects/%s/zones/%s/clusters/%s", Project, Zone, c.Name)
}

// ControllerVM is the emulator's instances service and the key of a cluster's controller VM in
// it, for fakes that play the controller agent's part.
func (e *Env) ControllerVM(t *testing.T, cluster string) (*instances.Service, string) {
	t.Helper()
	svc, ok := e.Server.Component("instances").(*instances.Service)
	if !ok {
		t.Fatal("the emulator has no instances service")
	}
	return svc, instances.InstanceKey(Project, Zone, cc.ControllerName(cluster))
}

// Every calls tick every interval until the test ends; the test's cleanup waits for the last call.
func Every(t *testing.T, interval time.Duration, tick func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			tick()
			time.Sleep(interval)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
