package instances_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// The local runtime plugs in as is.
var _ instances.Runtime = (*vmruntime.Runtime)(nil)

// fakeRuntime records what the instances service asks of a runtime.
type fakeRuntime struct {
	mu     sync.Mutex
	calls  []string
	specs  map[string]vmruntime.HostSpec
	notify chan struct{}
}

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{specs: map[string]vmruntime.HostSpec{}, notify: make(chan struct{}, 100)}
}

func (f *fakeRuntime) record(s string) error {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
	f.notify <- struct{}{}
	return nil
}

func (f *fakeRuntime) Boot(_ context.Context, spec vmruntime.HostSpec) error {
	f.mu.Lock()
	f.specs[spec.ID] = spec
	f.mu.Unlock()
	return f.record("boot " + spec.Name)
}
func (f *fakeRuntime) Reset(id string) error {
	return f.record("reset " + id[strings.LastIndex(id, "/")+1:])
}
func (f *fakeRuntime) Stop(id string) error {
	return f.record("stop " + id[strings.LastIndex(id, "/")+1:])
}
func (f *fakeRuntime) Start(id string) error {
	return f.record("start " + id[strings.LastIndex(id, "/")+1:])
}
func (f *fakeRuntime) Delete(id string) error {
	return f.record("delete " + id[strings.LastIndex(id, "/")+1:])
}
func (f *fakeRuntime) SerialOutput(id string, start int64) (string, int64, error) {
	out := "real console of " + id + "\n"
	if start >= int64(len(out)) {
		return "", int64(len(out)), nil
	}
	return out[start:], int64(len(out)), nil
}

// waitCalls waits until n runtime calls happened and returns them.
func (f *fakeRuntime) waitCalls(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		f.mu.Lock()
		got := append([]string(nil), f.calls...)
		f.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-f.notify:
		case <-deadline:
			t.Fatalf("runtime calls %v, want %d", got, n)
		}
	}
}

type fakeMetadata struct{}

func (fakeMetadata) StartFor(key string) (string, error) {
	return "127.0.0.1:9" + fmt.Sprint(len(key)%10), nil
}

func TestRuntimeFollowsLifecycle(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("early", "e2-standard-2"))
	rt := newFakeRuntime()
	e.svc.SetMetadataServers(fakeMetadata{})
	e.svc.SetRuntime(rt) // boots the VM already running
	if got := rt.waitCalls(t, 1); got[0] != "boot early" {
		t.Fatalf("attaching the runtime: %v", got)
	}
	rt.mu.Lock()
	rt.calls = nil
	rt.mu.Unlock()
	v := vm("host-a", "e2-standard-2")
	v.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("startup-script"), Value: proto.String("#!/bin/bash\necho up")}}}
	e.mustInsert(v)
	rt.waitCalls(t, 1)
	rt.mu.Lock()
	spec := rt.specs["projects/"+project+"/zones/"+zone+"/instances/host-a"]
	rt.mu.Unlock()
	if spec.Name != "host-a" || spec.IP != "10.0.0.3" || spec.PrefixLen != 20 || spec.MTU != 8896 ||
		spec.Network != "projects/"+project+"/global/networks/net" || !strings.Contains(spec.StartupScript, "echo up") || spec.MetadataAddr == "" {
		t.Fatalf("host spec: %+v", spec)
	}
	wait := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	op, err := e.instances.Stop(e.ctx, &computepb.StopInstanceRequest{Project: project, Zone: zone, Instance: "host-a"})
	wait(err)
	wait(op.Wait(e.ctx))
	op, err = e.instances.Start(e.ctx, &computepb.StartInstanceRequest{Project: project, Zone: zone, Instance: "host-a"})
	wait(err)
	wait(op.Wait(e.ctx))
	op, err = e.instances.Reset(e.ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: "host-a"})
	wait(err)
	wait(op.Wait(e.ctx))
	rt.waitCalls(t, 4)
	out, err := e.instances.GetSerialPortOutput(e.ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: project, Zone: zone, Instance: "host-a"})
	if err != nil || !strings.HasPrefix(out.GetContents(), "real console of") {
		t.Fatalf("serial output does not come from the runtime: %q %v", out.GetContents(), err)
	}
	op, err = e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "host-a"})
	wait(err)
	wait(op.Wait(e.ctx))
	if got := strings.Join(rt.waitCalls(t, 5), ","); got != "boot host-a,stop host-a,start host-a,reset host-a,delete host-a" {
		t.Fatalf("runtime calls: %s", got)
	}
}

func TestRequestIDMakesInsertIdempotent(t *testing.T) {
	e := newEnv(t)
	req := &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: vm("a", "e2-standard-2"),
		RequestId: proto.String("8c5a1e0e-1d8b-4c67-9d4c-3f1f5b2a9e11")}
	op1, err := e.instances.Insert(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	op2, err := e.instances.Insert(e.ctx, req)
	if err != nil {
		t.Fatalf("retried insert: %v", err)
	}
	if op1.Proto().GetName() != op2.Proto().GetName() {
		t.Fatalf("retry started a new operation: %s vs %s", op1.Proto().GetName(), op2.Proto().GetName())
	}
}

func TestSnapshotReloadKeepsAddressesTaken(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-2"))
	data := e.srv.Store.Export()
	e.srv.Store.Replace(nil)
	if n := len(e.names()); n != 0 {
		t.Fatalf("%d VMs after clearing", n)
	}
	e.srv.Store.Replace(data)
	e.mustInsert(vm("b", "e2-standard-2"))
	if a, b := e.mustGet("a").GetNetworkInterfaces()[0].GetNetworkIP(), e.mustGet("b").GetNetworkInterfaces()[0].GetNetworkIP(); a == b {
		t.Fatalf("reloaded VM's address %s handed out again", a)
	}
}

func TestFlexStartWaitsForCapacity(t *testing.T) {
	e := newEnv(t)
	e.svc.SetCapacity(zone, "a3-highgpu-8g", 0)
	v := gpuVM("flex")
	v.Scheduling = &computepb.Scheduling{ProvisioningModel: proto.String("FLEX_START"), MaxRunDuration: &computepb.Duration{Seconds: proto.Int64(3600)},
		InstanceTerminationAction: proto.String("DELETE")}
	e.mustInsert(v)
	got := e.mustGet("flex")
	if got.GetStatus() != "PENDING" || got.GetReservationAffinity().GetConsumeReservationType() != "NO_RESERVATION" ||
		got.GetScheduling().GetOnHostMaintenance() != "TERMINATE" {
		t.Fatalf("flex-start VM without capacity: %s %v %v", got.GetStatus(), got.GetReservationAffinity(), got.GetScheduling())
	}
	if q := e.srv.Quotas.Get(region, "PREEMPTIBLE_NVIDIA_H100_GPUS"); q.Usage != 0 {
		t.Fatalf("pending VM charged quota: %v", q.Usage)
	}
	e.svc.SetCapacity(zone, "a3-highgpu-8g", 1)
	if n := e.svc.ProvisionPending(); n != 1 {
		t.Fatalf("provisioned %d pending VMs, want 1", n)
	}
	got = e.mustGet("flex")
	if got.GetStatus() != "RUNNING" || got.GetResourceStatus().GetScheduling().GetTerminationTimestamp() == "" {
		t.Fatalf("after capacity: %s %v", got.GetStatus(), got.GetResourceStatus())
	}
	if q := e.srv.Quotas.Get(region, "PREEMPTIBLE_NVIDIA_H100_GPUS"); q.Usage != 8 {
		t.Fatalf("flex VM charged %v preemptible GPUs, want 8", q.Usage)
	}
}
