package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// The admin API's host-event verbs over HTTP, without a runtime: what a test injects and what the VM's record
// shows afterwards.
func TestAdminHostEventsOverHTTP(t *testing.T) {
	env := emulatortest.Start(t)
	ctx := context.Background()
	insertNetwork(t, networksClient(t, env), "vpc")
	subs, err := compute.NewSubnetworksRESTClient(ctx, env.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	insts, err := compute.NewInstancesRESTClient(ctx, env.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { subs.Close(); insts.Close() })
	op, err := subs.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: "p", Region: "us-central1", SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/vpc"), IpCidrRange: proto.String("10.2.0.0/24")}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range map[string]*computepb.Scheduling{"std": nil, "spot": {ProvisioningModel: proto.String("SPOT")}} {
		op, err := insts.Insert(ctx, &computepb.InsertInstanceRequest{Project: "p", Zone: "us-central1-a", InstanceResource: &computepb.Instance{
			Name: proto.String(name), MachineType: proto.String("zones/us-central1-a/machineTypes/e2-standard-2"),
			Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
			NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/us-central1/subnetworks/sub")}},
			Scheduling:        sc,
		}})
		if err == nil {
			err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) *computepb.Instance {
		inst, err := insts.Get(ctx, &computepb.GetInstanceRequest{Project: "p", Zone: "us-central1-a", Instance: name})
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	const vms = "/emulator/v1/projects/p/zones/us-central1-a/instances/"
	type apiErr struct {
		Error struct{ Message string } `json:"error"`
	}

	before := get("std").GetResourceStatus().GetPhysicalHost()
	var fault map[string]string
	if code := call(t, env, "POST", vms+"std:hostFault", nil, &fault); code != 200 || fault["status"] != "RUNNING" ||
		fault["physicalHost"] == before || fault["physicalHost"] != get("std").GetResourceStatus().GetPhysicalHost() {
		t.Errorf(":hostFault: %d %v (host before %s)", code, fault, before)
	}
	if code := call(t, env, "POST", vms+"nosuch:hostFault", nil, nil); code != 404 {
		t.Errorf(":hostFault on a missing VM: %d", code)
	}
	var e apiErr
	if code := call(t, env, "POST", vms+"std:preempt", nil, &e); code != 400 || !strings.Contains(e.Error.Message, "never preempts") {
		t.Errorf(":preempt on a standard VM: %d %q", code, e.Error.Message)
	}
	if code := call(t, env, "POST", vms+"spot:preempt", map[string]any{"notice": "-1s"}, nil); code != 400 {
		t.Errorf("a negative notice: %d", code)
	}
	var ev map[string]any
	if code := call(t, env, "POST", vms+"std:maintenance", map[string]any{"notice": "50ms"}, &ev); code != 200 ||
		ev["maintenanceEvent"] != "MIGRATE_ON_HOST_MAINTENANCE" || ev["noticeEnds"] == "" {
		t.Errorf(":maintenance: %d %v", code, ev)
	}
	if code := call(t, env, "POST", vms+"spot:preempt", map[string]any{"notice": 50}, &ev); code != 200 || ev["preempted"] != true {
		t.Errorf(":preempt: %d %v", code, ev)
	}
	deadline := time.Now().Add(5 * time.Second)
	for get("spot").GetStatus() != "TERMINATED" {
		if time.Now().After(deadline) {
			t.Fatalf("the preempted VM is %s", get("spot").GetStatus())
		}
		time.Sleep(10 * time.Millisecond)
	}

	var win map[string]string
	if code := call(t, env, "POST", "/emulator/v1/noticeWindows", map[string]any{"preemption": "2s"}, &win); code != 200 || win["preemption"] != "2s" || win["maintenanceGpu"] != "1h0m0s" {
		t.Errorf("POST noticeWindows: %d %v", code, win)
	}
	if code := call(t, env, "GET", "/emulator/v1/noticeWindows", nil, &win); code != 200 || win["preemption"] != "2s" || win["maintenance"] != "1m0s" {
		t.Errorf("GET noticeWindows: %d %v", code, win)
	}
}
