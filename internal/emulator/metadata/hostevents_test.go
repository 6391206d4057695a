package metadata_test

import (
	"net/http"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// waitChange is a guest's wait_for_change on path from the answer whose ETag is etag ("" = from now).
func (e *env) waitChange(host, path, etag string) (string, string) {
	e.t.Helper()
	url := "http://" + host + "/computeMetadata/v1/" + path + "?wait_for_change=true&timeout_sec=10"
	if etag != "" {
		url += "&last_etag=" + etag
	}
	code, body, h := e.do(http.MethodGet, url, "", true)
	if code != 200 {
		e.t.Fatalf("%s: %d %s", url, code, body)
	}
	return body, h.Get("ETag")
}

// A guest waiting on instance/maintenance-event sees the notice the moment it is posted and NONE once the VM
// is migrated.
func TestMaintenanceNoticeWakesWaitForChange(t *testing.T) {
	e := newEnv(t)
	svc := e.srv.Component("instances").(*instances.Service)
	if code, body, _ := e.get("instance/maintenance-event"); code != 200 || body != "NONE" {
		t.Fatalf("before any event: %d %q", code, body)
	}
	type answer struct{ body, etag string }
	got := make(chan answer, 1)
	go func() {
		b, tag := e.waitChange(e.host, "instance/maintenance-event", "")
		got <- answer{b, tag}
	}()
	time.Sleep(100 * time.Millisecond) // the guest is waiting
	posted := time.Now()
	if _, err := svc.Maintenance(vmKey, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("wait_for_change did not return when the notice was posted")
	}
	if a.body != instances.MaintenanceMigrate || time.Since(posted) > 1500*time.Millisecond {
		t.Fatalf("notice %q after %s, want %s at once", a.body, time.Since(posted), instances.MaintenanceMigrate)
	}
	if body, _ := e.waitChange(e.host, "instance/maintenance-event", a.etag); body != instances.MaintenanceNone {
		t.Fatalf("after the migration: %q", body)
	}
}

// A Spot VM's guest waiting on instance/preempted sees TRUE when it is preempted.
func TestPreemptionWakesWaitForChange(t *testing.T) {
	e := newEnv(t)
	svc := e.srv.Component("instances").(*instances.Service)
	op, err := e.inst.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String("spot-1"),
		MachineType: proto.String("zones/" + zone + "/machineTypes/n2-standard-8"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Scheduling:        &computepb.Scheduling{ProvisioningModel: proto.String("SPOT")},
	}})
	if err == nil {
		err = op.Wait(e.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	key := instances.InstanceKey(project, zone, "spot-1")
	host, err := e.md.StartFor(key)
	if err != nil {
		t.Fatal(err)
	}
	body, etag := e.waitChange(host, "instance/preempted", "0")
	if body != "FALSE" {
		t.Fatalf("before preemption: %q", body)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		_, _ = svc.Preempt(key, 5*time.Second)
	}()
	if body, _ := e.waitChange(host, "instance/preempted", etag); body != "TRUE" {
		t.Fatalf("after preemption: %q", body)
	}
}
