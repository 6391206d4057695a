package instances_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// post sends a raw JSON body to a Compute path, as curl would, and returns the status and decoded answer.
func (e *env) post(path, body string) (int, map[string]any) {
	e.t.Helper()
	resp, err := http.Post(e.url+"/compute/v1/projects/"+project+"/zones/"+zone+"/instances/"+path, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		e.t.Fatalf("POST %s answered %d %s", path, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// waitOp waits for a zonal operation named in a raw answer.
func (e *env) waitOp(op map[string]any) {
	e.t.Helper()
	name, _ := op["name"].(string)
	resp, err := http.Post(e.url+"/compute/v1/projects/"+project+"/zones/"+zone+"/operations/"+name+"/wait", "application/json", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var done map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&done)
	if done["status"] != "DONE" || done["error"] != nil {
		e.t.Fatalf("operation %s: %v", name, done)
	}
}

func (e *env) key(name string) string { return instances.InstanceKey(project, zone, name) }

// waitStatus waits until the VM shows status and returns it.
func (e *env) waitStatus(name, status string) *computepb.Instance {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		inst := e.mustGet(name)
		if inst.GetStatus() == status {
			return inst
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s is %s, want %s", name, inst.GetStatus(), status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEveryVMHasAPhysicalHostStableAcrossRestarts(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("cpu", "e2-standard-2"))
	host := e.mustGet("cpu").GetResourceStatus().GetPhysicalHost()
	if parts := strings.Split(host, "/"); len(parts) != 4 || parts[0] != "" || parts[3] == "" {
		t.Fatalf("physicalHost %q is not /CLUSTER/BLOCK/HOST", host)
	}
	op, err := e.instances.Reset(e.ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: "cpu"})
	if err == nil {
		err = op.Wait(e.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := e.mustGet("cpu").GetResourceStatus().GetPhysicalHost(); got != host {
		t.Errorf("a reset moved the VM from %s to %s", host, got)
	}
}

// reportHostAsFaulty with the public reference's body restarts the VM on a new host of the same cluster; bad
// bodies and a VM that does not run are refused before anything happens.
func TestReportHostAsFaultyRestartsOnANewHost(t *testing.T) {
	e := newEnv(t)
	rt := newFakeRuntime()
	e.svc.SetMetadataServers(fakeMetadata{})
	e.svc.SetRuntime(rt)
	e.mustInsert(gpuVM("gpu"))
	rt.waitCalls(t, 1)
	before := e.mustGet("gpu")

	for body, want := range map[string][2]string{
		`{"faultReasons":[{"behavior":"PERFORMANCE"}]}`:                                   {"required", "Required field 'instancesReportHostAsFaultyRequestResource.disruptionSchedule'"},
		`{"disruptionSchedule":"FUTURE"}`:                                                 {"invalid", "Only IMMEDIATE is supported."},
		`{"disruptionSchedule":"IMMEDIATE","faultReasons":[{"behavior":"TOO_SLOW"}]}`:     {"invalid", "faultReasons[0].behavior"},
		`{"disruptionSchedule":"IMMEDIATE","faultReasons":[{"behaviour":"PERFORMANCE"}]}`: {"parseError", "Invalid JSON payload"},
	} {
		code, out := e.post("gpu/reportHostAsFaulty", body)
		apiErr, _ := out["error"].(map[string]any)
		msg, _ := apiErr["message"].(string)
		reason := ""
		if errs, _ := apiErr["errors"].([]any); len(errs) > 0 {
			reason, _ = errs[0].(map[string]any)["reason"].(string)
		}
		if code != 400 || reason != want[0] || !strings.Contains(msg, want[1]) {
			t.Errorf("%s: %d %v, want 400 %s with %q", body, code, out, want[0], want[1])
		}
	}
	if got := e.mustGet("gpu"); got.GetResourceStatus().GetPhysicalHost() != before.GetResourceStatus().GetPhysicalHost() {
		t.Fatalf("a refused report moved the VM")
	}

	code, op := e.post("gpu/reportHostAsFaulty", `{"disruptionSchedule":"IMMEDIATE","faultReasons":[{"behavior":"SILENT_DATA_CORRUPTION","description":"NCCL all_reduce at 40 GB/s"}]}`)
	if code != 200 || op["operationType"] != "reportHostAsFaulty" || op["kind"] != "compute#operation" {
		t.Fatalf("reportHostAsFaulty: %d %v", code, op)
	}
	e.waitOp(op)
	after := e.mustGet("gpu")
	oldHost, newHost := before.GetResourceStatus().GetPhysicalHost(), after.GetResourceStatus().GetPhysicalHost()
	if newHost == oldHost || strings.Split(newHost, "/")[1] != strings.Split(oldHost, "/")[1] {
		t.Errorf("physicalHost %s → %s, want a new host in the same cluster", oldHost, newHost)
	}
	if after.GetStatus() != "RUNNING" || after.GetLastStartTimestamp() == before.GetLastStartTimestamp() {
		t.Errorf("after the repair: %s, started %s (before %s)", after.GetStatus(), after.GetLastStartTimestamp(), before.GetLastStartTimestamp())
	}
	if got := rt.waitCalls(t, 2); got[1] != "reset gpu" {
		t.Errorf("runtime calls %v, want the VM rebooted", got)
	}

	noRestart := gpuVM("no-restart")
	noRestart.Scheduling.AutomaticRestart = proto.Bool(false)
	e.mustInsert(noRestart)
	_, op = e.post("no-restart/reportHostAsFaulty", `{"disruptionSchedule":"IMMEDIATE"}`)
	e.waitOp(op)
	if got := e.mustGet("no-restart"); got.GetStatus() != "TERMINATED" {
		t.Errorf("a VM without automaticRestart is %s after its host was reported", got.GetStatus())
	}

	op2, err := e.instances.Stop(e.ctx, &computepb.StopInstanceRequest{Project: project, Zone: zone, Instance: "gpu"})
	if err == nil {
		err = op2.Wait(e.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if code, out := e.post("gpu/reportHostAsFaulty", `{"disruptionSchedule":"IMMEDIATE"}`); code != 400 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "is not ready") {
		t.Errorf("report on a stopped VM: %d %v", code, out)
	}
}

// A host error (the admin API's :hostFault) reboots a VM with automaticRestart on a new host and stops a Spot VM.
func TestHostErrorFollowsAutomaticRestart(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("std", "e2-standard-2"))
	spot := vm("spot", "e2-standard-2")
	spot.Scheduling = &computepb.Scheduling{ProvisioningModel: proto.String("SPOT")}
	e.mustInsert(spot)
	before := e.mustGet("std").GetResourceStatus().GetPhysicalHost()
	got, err := e.svc.HostError(e.key("std"))
	if err != nil || got.GetStatus() != "RUNNING" || got.GetResourceStatus().GetPhysicalHost() == before {
		t.Fatalf("host error on a standard VM: %v %v", got, err)
	}
	if got, err := e.svc.HostError(e.key("spot")); err != nil || got.GetStatus() != "TERMINATED" {
		t.Fatalf("host error on a Spot VM: %v %v", got, err)
	}
	if _, err := e.svc.HostError(e.key("spot")); err == nil {
		t.Error("a host error on a TERMINATED VM was accepted")
	}
}

// simulateMaintenanceEvent on a TERMINATE VM: the notice shows first, then the VM stops and restarts on a new
// host, and the notice is gone.
func TestMaintenanceTerminatesThenRestartsOnANewHost(t *testing.T) {
	e := newEnv(t)
	rt := newFakeRuntime()
	e.svc.SetMetadataServers(fakeMetadata{})
	e.svc.SetRuntime(rt)
	e.svc.SetNoticeWindows(instances.NoticeWindows{MaintenanceGPU: core.Duration(time.Second), Restart: core.Duration(50 * time.Millisecond)})
	e.mustInsert(gpuVM("gpu"))
	rt.waitCalls(t, 1)
	before := e.mustGet("gpu")
	code, op := e.post("gpu/simulateMaintenanceEvent", "")
	if code != 200 || op["operationType"] != "simulateMaintenanceEvent" {
		t.Fatalf("simulateMaintenanceEvent: %d %v", code, op)
	}
	e.waitOp(op)
	if ev, pre := e.svc.HostNotice(e.key("gpu"), e.mustGet("gpu")); ev != instances.MaintenanceTerminate || pre {
		t.Fatalf("notice after the call: %s preempted=%v", ev, pre)
	}
	if got := e.mustGet("gpu"); got.GetStatus() != "RUNNING" {
		t.Fatalf("the VM stopped before its notice ran out: %s", got.GetStatus())
	}
	if got := strings.Join(rt.waitCalls(t, 3)[1:], ","); got != "stop gpu,start gpu" {
		t.Fatalf("runtime calls after the notice: %s", got)
	}
	after := e.waitStatus("gpu", "RUNNING")
	if after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() || after.GetLastStopTimestamp() == "" {
		t.Errorf("after maintenance: host %s (before %s), stopped at %q", after.GetResourceStatus().GetPhysicalHost(), before.GetResourceStatus().GetPhysicalHost(), after.GetLastStopTimestamp())
	}
	if ev, _ := e.svc.HostNotice(e.key("gpu"), after); ev != instances.MaintenanceNone {
		t.Errorf("notice after the restart: %s", ev)
	}
}

// A MIGRATE VM is live-migrated: MIGRATE_ON_HOST_MAINTENANCE, then NONE on a new host, never stopped.
func TestMaintenanceMigratesAMigrateVM(t *testing.T) {
	e := newEnv(t)
	e.svc.SetNoticeWindows(instances.NoticeWindows{Maintenance: core.Duration(100 * time.Millisecond)})
	e.mustInsert(vm("web", "e2-standard-2"))
	before := e.mustGet("web")
	ev, err := e.svc.Maintenance(e.key("web"), 0)
	if err != nil || ev.MaintenanceEvent != instances.MaintenanceMigrate {
		t.Fatalf("maintenance: %+v %v", ev, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		inst := e.mustGet("web")
		if inst.GetStatus() != "RUNNING" {
			t.Fatalf("a migrating VM went %s", inst.GetStatus())
		}
		if m, _ := e.svc.HostNotice(e.key("web"), inst); m == instances.MaintenanceNone {
			if inst.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() || inst.GetLastStartTimestamp() != before.GetLastStartTimestamp() {
				t.Errorf("after migration: host %s (before %s), started %s (before %s)", inst.GetResourceStatus().GetPhysicalHost(),
					before.GetResourceStatus().GetPhysicalHost(), inst.GetLastStartTimestamp(), before.GetLastStartTimestamp())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the migration never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// simulateMaintenanceEvent on a Spot VM is a preemption: preempted=TRUE while it shuts down, then TERMINATED
// (STOP) or deleted (DELETE); a restarted VM is no longer preempted. Standard VMs are never preempted.
func TestPreemptionStopsOrDeletesSpotVMs(t *testing.T) {
	e := newEnv(t)
	e.svc.SetNoticeWindows(instances.NoticeWindows{Preemption: core.Duration(time.Second)})
	for name, action := range map[string]string{"spot-stop": "STOP", "spot-delete": "DELETE"} {
		v := vm(name, "e2-standard-2")
		v.Scheduling = &computepb.Scheduling{ProvisioningModel: proto.String("SPOT"), InstanceTerminationAction: proto.String(action)}
		e.mustInsert(v)
	}
	e.mustInsert(vm("std", "e2-standard-2"))
	if _, err := e.svc.Preempt(e.key("std"), 0); err == nil || !strings.Contains(err.Error(), "never preempts") {
		t.Errorf("preempting a standard VM: %v", err)
	}

	_, op := e.post("spot-stop/simulateMaintenanceEvent", "")
	e.waitOp(op)
	inst := e.mustGet("spot-stop")
	if _, pre := e.svc.HostNotice(e.key("spot-stop"), inst); !pre || inst.GetStatus() != "STOPPING" {
		t.Fatalf("during the notice: %s preempted=%v", inst.GetStatus(), pre)
	}
	if _, err := e.svc.Preempt(e.key("spot-delete"), 0); err != nil {
		t.Fatal(err)
	}
	inst = e.waitStatus("spot-stop", "TERMINATED")
	if _, pre := e.svc.HostNotice(e.key("spot-stop"), inst); !pre {
		t.Error("a preempted VM no longer says so")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := e.get("spot-delete"); httpCode(err) == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the DELETE Spot VM survived its preemption")
		}
		time.Sleep(10 * time.Millisecond)
	}
	op2, err := e.instances.Start(e.ctx, &computepb.StartInstanceRequest{Project: project, Zone: zone, Instance: "spot-stop"})
	if err == nil {
		err = op2.Wait(e.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, pre := e.svc.HostNotice(e.key("spot-stop"), e.mustGet("spot-stop")); pre {
		t.Error("a restarted Spot VM still reads preempted=TRUE")
	}
}

// A notice saved in a state file goes on where it stopped once loaded: the MIGRATE VM is migrated when its
// notice ends, by the emulator that loaded it.
func TestNoticeLoadedFromAStateFileCompletes(t *testing.T) {
	saved, e := newEnv(t), newEnv(t)
	saved.mustInsert(vm("web", "e2-standard-2"))
	if _, err := saved.svc.Maintenance(saved.key("web"), time.Second); err != nil {
		t.Fatal(err)
	}
	host := saved.mustGet("web").GetResourceStatus().GetPhysicalHost()
	data := saved.srv.Store.Export()
	saved.srv.Close() // its timers die with it
	e.srv.Store.Replace(data)
	if m, _ := e.svc.HostNotice(e.key("web"), e.mustGet("web")); m != instances.MaintenanceMigrate {
		t.Fatalf("loaded notice: %s", m)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		// The instance is read again after the notice is seen gone: the migration moves the host and ends
		// the notice in one transaction, and a copy read before it would still show the old host.
		if m, _ := e.svc.HostNotice(e.key("web"), e.mustGet("web")); m == instances.MaintenanceNone {
			if e.mustGet("web").GetResourceStatus().GetPhysicalHost() == host {
				t.Error("the loaded notice ended without the migration")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the loaded notice never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A reset of the emulator restores Google's notice windows.
func TestResetRestoresNoticeWindows(t *testing.T) {
	e := newEnv(t)
	e.svc.SetNoticeWindows(instances.NoticeWindows{Preemption: core.Duration(time.Second)})
	e.srv.Reset()
	if got := e.svc.NoticeWindowsNow(); got != instances.DefaultNoticeWindows {
		t.Errorf("after reset: %+v", got)
	}
}

// The official Go client's ReportHostAsFaulty and SimulateMaintenanceEvent reach the emulator's routes, as the
// controller's auto-repair calls them.
func TestHostEventCallsThroughTheGoClient(t *testing.T) {
	e := newEnv(t)
	e.svc.SetNoticeWindows(instances.NoticeWindows{MaintenanceGPU: core.Duration(time.Hour)})
	e.mustInsert(gpuVM("gpu"))
	before := e.mustGet("gpu").GetResourceStatus().GetPhysicalHost()
	op, err := e.instances.ReportHostAsFaulty(e.ctx, &computepb.ReportHostAsFaultyInstanceRequest{Project: project, Zone: zone, Instance: "gpu",
		InstancesReportHostAsFaultyRequestResource: &computepb.InstancesReportHostAsFaultyRequest{
			DisruptionSchedule: proto.String("IMMEDIATE"),
			FaultReasons:       []*computepb.InstancesReportHostAsFaultyRequestFaultReason{{Behavior: proto.String("PERFORMANCE"), Description: proto.String("dcgmi diag -r 2 failed")}},
		}})
	if err == nil {
		err = op.Wait(e.ctx)
	}
	if err != nil {
		t.Fatalf("ReportHostAsFaulty: %v", err)
	}
	if got := e.mustGet("gpu").GetResourceStatus().GetPhysicalHost(); got == before {
		t.Errorf("the VM stayed on %s", got)
	}
	op, err = e.instances.SimulateMaintenanceEvent(e.ctx, &computepb.SimulateMaintenanceEventInstanceRequest{Project: project, Zone: zone, Instance: "gpu"})
	if err == nil {
		err = op.Wait(e.ctx)
	}
	if err != nil {
		t.Fatalf("SimulateMaintenanceEvent: %v", err)
	}
	if m, _ := e.svc.HostNotice(e.key("gpu"), e.mustGet("gpu")); m != instances.MaintenanceTerminate {
		t.Errorf("a GPU VM's maintenance notice reads %s", m)
	}
}
