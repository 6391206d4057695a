package healthpolicy_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/healthpolicy"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// factories serves the provider with this resource, whether or not the provider registers it yet.
var factories = func() map[string]func() (tfprotov6.ProviderServer, error) {
	return acctest.FactoriesWith(func() resource.Resource { return healthpolicy.NewResource() })
}()

const addr = "hypercompute_health_policy.test"

// apiCluster is a training cluster made through the API, as hypercompute_training_cluster and
// hypercompute_node_partition leave it: a controller VM holding the cluster's configuration and
// the partition keys cpu (n2-standard-4) and a3 (a3-highgpu-8g).
func apiCluster(t *testing.T, env *acctest.Env, name string) string {
	t.Helper()
	ctx := context.Background()
	cl := env.Clients()
	network := name + "-net"
	wait := func(o *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.WaitCompute(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	wait(cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
		Name: proto.String(network), AutoCreateSubnetworks: proto.Bool(false)}}))
	wait(cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String(network + "-subnet"), Network: proto.String("projects/" + acctest.Project + "/global/networks/" + network), IpCidrRange: proto.String("10.0.0.0/16")}}))
	c := cc.Cluster{
		Name:       name,
		Controller: cc.Controller{Hostname: cc.ControllerName(name)},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: "10.0.9.2", Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: "0.1.0", URL: "https://example.com/hypercompute-agent", SHA256: strings.Repeat("ab", 32)}},
	}
	cfg, err := cc.EncodeCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	items := []*computepb.Items{
		{Key: proto.String(cc.ClusterKey), Value: proto.String(string(cfg))},
		{Key: proto.String(cc.GuestAttributesKey), Value: proto.String("TRUE")},
	}
	for _, p := range []cc.Partition{{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2}, {Name: "a3", MachineType: "a3-highgpu-8g", StaticNodes: 2}} {
		b, err := cc.EncodePartition(name, p)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, &computepb.Items{Key: proto.String(cc.PartitionKey(p.Name)), Value: proto.String(string(b))})
	}
	wait(cl.Instances.Insert(ctx, &computepb.InsertInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, InstanceResource: &computepb.Instance{
		Name: proto.String(cc.ControllerName(name)), MachineType: proto.String("n2-standard-8"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + acctest.Region + "/subnetworks/" + network + "-subnet")}},
		Metadata:          &computepb.Metadata{Items: items},
	}}))
	return fmt.Sprintf("projects/%s/zones/%s/clusters/%s", acctest.Project, acctest.Zone, name)
}

// fakeController plays the controller agent's policy handling in API-only tests: it decodes every
// health policy key as the agent does and reports its generation applied; a key that went away
// loses its report. A key the agent could not decode is reported nowhere.
type fakeController struct {
	svc *instances.Service
	key string

	mu       sync.Mutex
	reported map[string]bool
	paused   bool
}

func startFakeController(t *testing.T, env *acctest.Env, cluster string) *fakeController {
	t.Helper()
	svc, ok := env.Server.Component("instances").(*instances.Service)
	if !ok {
		t.Fatal("the emulator has no instances service")
	}
	f := &fakeController{svc: svc, key: instances.InstanceKey(acctest.Project, acctest.Zone, cc.ControllerName(cluster)), reported: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			f.tick()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

func (f *fakeController) pause(p bool) { f.mu.Lock(); f.paused = p; f.mu.Unlock() }

func (f *fakeController) tick() {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.svc.Instance(f.key)
	if !ok || f.paused {
		return
	}
	now := map[string]bool{}
	for _, it := range inst.GetMetadata().GetItems() {
		if !strings.HasPrefix(it.GetKey(), cc.HealthPolicyKeyPrefix) {
			continue
		}
		p, err := cc.DecodeHealthPolicy([]byte(it.GetValue()))
		if err != nil {
			continue
		}
		now[p.Name] = true
		_ = f.svc.PutGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.HealthPolicyAttr(p.Name), p.Generation)
	}
	for name := range f.reported {
		if !now[name] {
			_ = f.svc.DeleteGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.HealthPolicyAttr(name))
		}
	}
	f.reported = now
}

// controllerPolicy is the policy the provider wrote under its key on the controller.
func controllerPolicy(env *acctest.Env, cluster, name string) (cc.HealthPolicy, bool) {
	svc := env.Server.Component("instances").(*instances.Service)
	inst, ok := svc.Instance(instances.InstanceKey(acctest.Project, acctest.Zone, cc.ControllerName(cluster)))
	if !ok {
		return cc.HealthPolicy{}, false
	}
	for _, it := range inst.GetMetadata().GetItems() {
		if it.GetKey() == cc.HealthPolicyKey(name) {
			p, err := cc.DecodeHealthPolicy([]byte(it.GetValue()))
			return p, err == nil
		}
	}
	return cc.HealthPolicy{}, false
}

// removePolicyKey deletes a policy's key on the controller, as someone outside Terraform would.
func removePolicyKey(env *acctest.Env, cluster, name string) error {
	vm := tfutil.VM{Project: acctest.Project, Zone: acctest.Zone, Name: cc.ControllerName(cluster)}
	_, err := tfutil.SetMetadataKey(context.Background(), env.Clients(), vm, nil, cc.HealthPolicyKey(name), nil)
	return err
}

func regexpOf(s string) *regexp.Regexp { return regexp.MustCompile(s) }
