package power_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

const (
	project = "hc-power"
	zone    = "us-central1-a"
	region  = "us-central1"
)

func do[T interface{ Proto() *computepb.Operation }](t *testing.T, cl *gcp.Clients, o T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(gcp.Classify(err))
	}
	if _, err := cl.WaitComputeOp(context.Background(), o.Proto()); err != nil {
		t.Fatal(err)
	}
}

// setup makes a network and the template a partition "cpu" of cluster "c" creates its nodes from,
// labelled as hypercompute_node_partition labels them.
func setup(t *testing.T) (*emulatortest.Env, power.Env) {
	t.Helper()
	env := emulatortest.Start(t)
	ctx := context.Background()
	cl, err := gcp.NewClients(ctx, gcp.Config{Project: project, Region: region, Zone: zone, EmulatorHost: env.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	o, err := cl.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("n"), AutoCreateSubnetworks: proto.Bool(false)}})
	do(t, cl, o, err)
	o, err = cl.Subnetworks.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("n-subnet"), Network: proto.String("global/networks/n"), IpCidrRange: proto.String("10.0.0.0/16")}})
	do(t, cl, o, err)
	o, err = cl.InstanceTemplates.Insert(ctx, &computepb.InsertInstanceTemplateRequest{Project: project, InstanceTemplateResource: &computepb.InstanceTemplate{
		Name: proto.String("c-cpu-0123456789ab"),
		Properties: &computepb.InstanceProperties{
			MachineType: proto.String("n2-standard-4"),
			Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
			NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("projects/" + project + "/regions/" + region + "/subnetworks/n-subnet")}},
			Labels:            map[string]string{"hypercompute-cluster": "c", "hypercompute-partition": "c-cpu"},
			Scheduling:        &computepb.Scheduling{ProvisioningModel: proto.String("SPOT"), InstanceTerminationAction: proto.String("STOP")},
		},
	}})
	do(t, cl, o, err)
	cluster := cc.Cluster{Name: "c", Controller: cc.Controller{Hostname: "c-controller"}}
	parts := []cc.Partition{
		{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2, MaxDynamicNodes: 8, InstanceTemplate: "projects/" + project + "/global/instanceTemplates/c-cpu-0123456789ab"},
		{Name: "gpu", MachineType: "g2-standard-24", MaxDynamicNodes: 2},
	}
	return env, power.Env{Clients: cl, Project: project, Zone: zone, Cluster: cluster, Partitions: parts}
}

func vms(env *emulatortest.Env) []string {
	var out []string
	for _, n := range env.Inventory().Names(instances.KindInstances) {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Resume creates the nodes' VMs with one bulkInsert from the partition's template and is
// idempotent; Suspend deletes them; a stopped Spot VM is started rather than recreated.
func TestResumeSuspend(t *testing.T) {
	env, pe := setup(t)
	ctx := context.Background()
	if err := power.Resume(ctx, pe, "c-cpu-d[0-2]"); err != nil {
		t.Fatal(err)
	}
	if got := vms(env); !slices.Equal(got, []string{"c-cpu-d0", "c-cpu-d1", "c-cpu-d2"}) {
		t.Fatalf("after resume: %v", got)
	}
	if n := env.CallCount("compute.instances.bulkInsert"); n != 1 {
		t.Errorf("resume of 3 nodes made %d bulkInsert calls, want 1", n)
	}
	svc := env.Server.Component("instances").(*instances.Service)
	inst, _ := svc.Instance(instances.InstanceKey(project, zone, "c-cpu-d1"))
	if inst.GetLabels()["hypercompute-partition"] != "c-cpu" || inst.GetScheduling().GetProvisioningModel() != "SPOT" {
		t.Errorf("resumed VM not made from the template: labels %v scheduling %v", inst.GetLabels(), inst.GetScheduling())
	}
	id := inst.GetId()

	// Slurm asks again (a retry): nothing is created twice, nothing is replaced.
	env.ResetCalls()
	if err := power.Resume(ctx, pe, "c-cpu-d[1-2],c-cpu-d0"); err != nil {
		t.Fatal(err)
	}
	if n := env.CallCount("compute.instances.bulkInsert"); n != 0 {
		t.Errorf("resuming running nodes made %d bulkInsert calls", n)
	}
	if inst, _ := svc.Instance(instances.InstanceKey(project, zone, "c-cpu-d1")); inst.GetId() != id {
		t.Error("a running node was recreated")
	}

	// A preempted node (STOP) is started again.
	o, err := pe.Clients.Instances.Stop(ctx, &computepb.StopInstanceRequest{Project: project, Zone: zone, Instance: "c-cpu-d2"})
	do(t, pe.Clients, o, err)
	if err := power.Resume(ctx, pe, "c-cpu-d2"); err != nil {
		t.Fatal(err)
	}
	if inst, _ := svc.Instance(instances.InstanceKey(project, zone, "c-cpu-d2")); inst.GetStatus() != "RUNNING" {
		t.Errorf("stopped node is %s after resume", inst.GetStatus())
	}

	if err := power.Suspend(ctx, pe, "c-cpu-d[0-1],c-cpu-d7"); err != nil {
		t.Fatal(err) // c-cpu-d7 has no VM: already suspended
	}
	if got := vms(env); !slices.Equal(got, []string{"c-cpu-d2"}) {
		t.Fatalf("after suspend: %v", got)
	}
	if err := power.ResumeFail(ctx, pe, "c-cpu-d2"); err != nil {
		t.Fatal(err)
	}
	if got := vms(env); len(got) != 0 {
		t.Fatalf("after resume-fail: %v", got)
	}
}

// When the zone runs out, Resume keeps what it got and names exactly the nodes it could not
// create, with Compute's reason; nodes outside every partition are named too.
func TestResumeReportsFailedNodes(t *testing.T) {
	env, pe := setup(t)
	svc := env.Server.Component("instances").(*instances.Service)
	svc.SetCapacity(zone, "n2-standard-4", 1)
	err := power.Resume(context.Background(), pe, "c-cpu-d[3-5],c-other-1")
	var ne *power.NodesError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v, want a NodesError", err)
	}
	slices.Sort(ne.Nodes)
	if !slices.Equal(ne.Nodes, []string{"c-cpu-d4", "c-cpu-d5", "c-other-1"}) {
		t.Errorf("failed nodes %v", ne.Nodes)
	}
	if !strings.Contains(err.Error(), "ZONE_RESOURCE_POOL_EXHAUSTED") || !strings.Contains(err.Error(), "belong to no partition") {
		t.Errorf("error lacks the reasons: %v", err)
	}
	if got := vms(env); !slices.Equal(got, []string{"c-cpu-d3"}) {
		t.Errorf("VMs: %v", got)
	}
	// A partition without a template yet cannot resume.
	if err := power.Resume(context.Background(), pe, "c-gpu-d0"); err == nil || !strings.Contains(err.Error(), "no instance template") {
		t.Errorf("resume without a template: %v", err)
	}
}
