package nodepartition_test

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// factories serves the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(nodepartition.NewResource)

const addr = "hypercompute_node_partition.test"

// testCluster is a training cluster made through the API, as hypercompute_training_cluster leaves
// it: a network (with a GPU network set when asked), and a controller VM holding the cluster's
// configuration; a fake agent plays the controller's agent.
type testCluster struct {
	name, network, id string
	controllerKey     string
	agent             *acctest.FakeAgent
}

type clusterOpts struct {
	gpuStack string // "", "tcpx", "tcpxo", "rdma" (the RDMA VPC on us-central1-b's vpc-roce profile)
	arm      bool   // add an arm64 agent build (A4X)
	// gpuSubnetBits is the prefix length of the tcpx/tcpxo GPU subnets; 0 makes /20s (4,092 nodes).
	gpuSubnetBits int
}

var (
	agentX86 = cc.AgentRef{Version: "0.1.0", URL: "https://example.com/hypercompute-agent-amd64", SHA256: strings.Repeat("ab", 32)}
	agentARM = cc.AgentRef{Version: "0.1.0", Arch: "arm64", URL: "https://example.com/hypercompute-agent-arm64", SHA256: strings.Repeat("cd", 32)}
)

func newCluster(t testing.TB, env *emulatortest.Env, name string, o clusterOpts) *testCluster {
	t.Helper()
	ctx := context.Background()
	cl, err := gcp.NewClients(ctx, gcp.Config{Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, EmulatorHost: env.Host, UserAgent: "nodepartition-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	network := name + "-net"
	mustOp(t, cl, func() (op, error) {
		return cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
			Name: proto.String(network), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8896)}})
	})
	netLink := "https://www.googleapis.com/compute/v1/projects/" + acctest.Project + "/global/networks/" + network
	mustOp(t, cl, func() (op, error) {
		return cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, SubnetworkResource: &computepb.Subnetwork{
			Name: proto.String(network + "-subnet"), Network: proto.String(netLink), IpCidrRange: proto.String("10.0.0.0/16")}})
	})
	gpuVPCs := map[string]int{"tcpx": 4, "tcpxo": 8}[o.gpuStack]
	for i := 0; i < gpuVPCs; i++ {
		gname := fmt.Sprintf("%s-gpu-%d", network, i)
		mustOp(t, cl, func() (op, error) {
			return cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
				Name: proto.String(gname), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8244)}})
		})
		mustOp(t, cl, func() (op, error) {
			return cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, SubnetworkResource: &computepb.Subnetwork{
				Name: proto.String(gname + "-subnet"), Network: proto.String("projects/" + acctest.Project + "/global/networks/" + gname),
				IpCidrRange: proto.String(fmt.Sprintf("192.168.%d.0/%d", i*16, cmp.Or(o.gpuSubnetBits, 20)))}})
		})
	}
	if o.gpuStack == "rdma" {
		newRDMANetworks(t, cl, network)
	}
	cluster := cc.Cluster{
		Name:       name,
		Controller: cc.Controller{Hostname: cc.ControllerName(name)},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: "10.0.9.2", Share: "/home"}},
		Agents:     []cc.AgentRef{agentX86},
	}
	if o.arm {
		cluster.Agents = append(cluster.Agents, agentARM)
	}
	cfg, err := cc.EncodeCluster(cluster)
	if err != nil {
		t.Fatal(err)
	}
	mustOp(t, cl, func() (op, error) {
		return cl.Instances.Insert(ctx, &computepb.InsertInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, InstanceResource: &computepb.Instance{
			Name: proto.String(cc.ControllerName(name)), MachineType: proto.String("n2-standard-8"),
			Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
			NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + acctest.Region + "/subnetworks/" + network + "-subnet")}},
			ServiceAccounts:   []*computepb.ServiceAccount{{Email: proto.String("default"), Scopes: []string{gcp.CloudPlatformScope}}},
			Tags:              &computepb.Tags{Items: []string{name + "-node"}},
			Metadata: &computepb.Metadata{Items: []*computepb.Items{
				{Key: proto.String(cc.ClusterKey), Value: proto.String(string(cfg))},
				{Key: proto.String(cc.GuestAttributesKey), Value: proto.String("TRUE")},
			}},
		}})
	})
	tc := &testCluster{
		name: name, network: network,
		id:            fmt.Sprintf("projects/%s/zones/%s/clusters/%s", acctest.Project, acctest.Zone, name),
		controllerKey: instances.InstanceKey(acctest.Project, acctest.Zone, cc.ControllerName(name)),
	}
	tc.agent = acctest.StartFakeAgent(t, env)
	return tc
}

// newRDMANetworks builds what hypercompute_network's rdma stack builds: a host gVNIC VPC
// (<net>-gpu-0) and the RDMA VPC (<net>-rdma) on us-central1-b's vpc-roce profile with 8 subnets.
func newRDMANetworks(t testing.TB, cl *gcp.Clients, network string) {
	ctx := context.Background()
	host := network + "-gpu-0"
	mustOp(t, cl, func() (op, error) {
		return cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
			Name: proto.String(host), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8896)}})
	})
	mustOp(t, cl, func() (op, error) {
		return cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, SubnetworkResource: &computepb.Subnetwork{
			Name: proto.String(host + "-subnet"), Network: proto.String("projects/" + acctest.Project + "/global/networks/" + host),
			IpCidrRange: proto.String("192.168.0.0/24")}})
	})
	rdma := network + "-rdma"
	mustOp(t, cl, func() (op, error) {
		return cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
			Name: proto.String(rdma), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8896),
			NetworkProfile: proto.String("projects/" + acctest.Project + "/global/networkProfiles/us-central1-b-vpc-roce")}})
	})
	for i := range 8 {
		mustOp(t, cl, func() (op, error) {
			return cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, SubnetworkResource: &computepb.Subnetwork{
				Name: proto.String(fmt.Sprintf("%s-sub-%d", rdma, i)), Network: proto.String("projects/" + acctest.Project + "/global/networks/" + rdma),
				IpCidrRange: proto.String(fmt.Sprintf("192.168.%d.0/24", i+1))}})
		})
	}
}

type op interface{ Proto() *computepb.Operation }

func mustOp[T op](t testing.TB, cl *gcp.Clients, call func() (T, error)) {
	t.Helper()
	o, err := call()
	if err != nil {
		t.Fatal(gcp.Classify(err))
	}
	if _, err := cl.WaitComputeOp(context.Background(), o.Proto()); err != nil {
		t.Fatal(err)
	}
}

// vmNames lists the names of the instances of a partition prefix in the emulator's store.
func vmNames(env *emulatortest.Env, prefix string) []string {
	var out []string
	for _, n := range env.Emulator.Inventory(false).Names(instances.KindInstances) {
		if strings.HasPrefix(n, prefix+"-") {
			out = append(out, n)
		}
	}
	return out
}

// partitionKey reads a partition's config from the controller in the store.
func (tc *testCluster) partition(env *emulatortest.Env, name string) (cc.Partition, bool) {
	svc := env.Server.Component("instances").(*instances.Service)
	inst, ok := svc.Instance(tc.controllerKey)
	if !ok {
		return cc.Partition{}, false
	}
	for _, it := range inst.GetMetadata().GetItems() {
		if it.GetKey() == cc.PartitionKey(name) {
			p, err := cc.DecodePartition(tc.name, []byte(it.GetValue()))
			return p, err == nil
		}
	}
	return cc.Partition{}, false
}

var _ = core.KindQuotas
