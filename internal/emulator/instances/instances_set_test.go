package instances_test

import (
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// wait runs a mutation through the official client and waits for its operation.
func (e *env) wait(op *compute.Operation, err error) error {
	if err != nil {
		return err
	}
	return op.Wait(e.ctx)
}

func (e *env) mustWait(op *compute.Operation, err error) {
	e.t.Helper()
	if err := e.wait(op, err); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) stop(name string) {
	e.t.Helper()
	e.mustWait(e.instances.Stop(e.ctx, &computepb.StopInstanceRequest{Project: project, Zone: zone, Instance: name}))
}

// Machine type, service account and minimum CPU platform change only on a stopped VM: a running one answers
// 400 "Instance is starting or running." (the message Google's own clients match to stop and retry).
func TestSetMachineTypeServiceAccountMinCpuNeedAStoppedVM(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-4"))
	mtReq := &computepb.SetMachineTypeInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMachineTypeRequestResource: &computepb.InstancesSetMachineTypeRequest{MachineType: proto.String("zones/" + zone + "/machineTypes/e2-standard-8")}}
	_, err := e.instances.SetMachineType(e.ctx, mtReq)
	wantHTTPError(t, err, 400, "Instance is starting or running.")
	_, err = e.instances.SetServiceAccount(e.ctx, &computepb.SetServiceAccountInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetServiceAccountRequestResource: &computepb.InstancesSetServiceAccountRequest{Email: proto.String("default")}})
	wantHTTPError(t, err, 400, "Instance is starting or running.")
	_, err = e.instances.SetMinCpuPlatform(e.ctx, &computepb.SetMinCpuPlatformInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMinCpuPlatformRequestResource: &computepb.InstancesSetMinCpuPlatformRequest{MinCpuPlatform: proto.String("AMD Rome")}})
	wantHTTPError(t, err, 400, "Instance is starting or running.")

	e.stop("a")
	e.mustWait(e.instances.SetMachineType(e.ctx, mtReq))
	got := e.mustGet("a")
	if want := core.SelfLink("projects/" + project + "/zones/" + zone + "/machineTypes/e2-standard-8"); got.GetMachineType() != want {
		t.Errorf("machineType = %s, want %s", got.GetMachineType(), want)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 8 {
		t.Errorf("CPUS usage after resize to e2-standard-8 = %v, want 8", q.Usage)
	}
	_, err = e.instances.SetMachineType(e.ctx, &computepb.SetMachineTypeInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMachineTypeRequestResource: &computepb.InstancesSetMachineTypeRequest{MachineType: proto.String("zones/" + zone + "/machineTypes/e2-bogus-3")}})
	wantHTTPError(t, err, 400, "Machine type with name 'e2-bogus-3' does not exist")
	// A GPU machine type cannot live-migrate: the VM's onHostMaintenance MIGRATE refuses it.
	_, err = e.instances.SetMachineType(e.ctx, &computepb.SetMachineTypeInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMachineTypeRequestResource: &computepb.InstancesSetMachineTypeRequest{MachineType: proto.String("zones/" + zone + "/machineTypes/a3-highgpu-8g")}})
	wantHTTPError(t, err, 400, "do not support live migration")

	e.mustWait(e.instances.SetServiceAccount(e.ctx, &computepb.SetServiceAccountInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetServiceAccountRequestResource: &computepb.InstancesSetServiceAccountRequest{Email: proto.String("sa@test-project.iam.gserviceaccount.com"), Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}}}))
	e.mustWait(e.instances.SetMinCpuPlatform(e.ctx, &computepb.SetMinCpuPlatformInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMinCpuPlatformRequestResource: &computepb.InstancesSetMinCpuPlatformRequest{MinCpuPlatform: proto.String("AMD Rome")}}))
	got = e.mustGet("a")
	if sa := got.GetServiceAccounts(); len(sa) != 1 || sa[0].GetEmail() != "sa@test-project.iam.gserviceaccount.com" || len(sa[0].GetScopes()) != 1 {
		t.Errorf("serviceAccounts = %v", sa)
	}
	if got.GetMinCpuPlatform() != "AMD Rome" {
		t.Errorf("minCpuPlatform = %q", got.GetMinCpuPlatform())
	}
	_, err = e.instances.SetMinCpuPlatform(e.ctx, &computepb.SetMinCpuPlatformInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetMinCpuPlatformRequestResource: &computepb.InstancesSetMinCpuPlatformRequest{MinCpuPlatform: proto.String("Intel Nowhere Lake")}})
	wantHTTPError(t, err, 400, "minCpuPlatform")
}

func TestSetTagsSchedulingDeletionProtection(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-4"))
	// Every VM has a tags fingerprint; a missing or stale one is 412 conditionNotMet.
	fp := e.mustGet("a").GetTags().GetFingerprint()
	if fp == "" {
		t.Fatal("a new VM shows no tags.fingerprint")
	}
	_, err := e.instances.SetTags(e.ctx, &computepb.SetTagsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		TagsResource: &computepb.Tags{Items: []string{"ssh"}}})
	wantHTTPError(t, err, 412, "fingerprint")
	e.mustWait(e.instances.SetTags(e.ctx, &computepb.SetTagsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		TagsResource: &computepb.Tags{Items: []string{"ssh"}, Fingerprint: proto.String(fp)}}))
	got := e.mustGet("a")
	if items := got.GetTags().GetItems(); len(items) != 1 || items[0] != "ssh" || got.GetTags().GetFingerprint() == "" {
		t.Fatalf("tags = %v", got.GetTags())
	}
	_, err = e.instances.SetTags(e.ctx, &computepb.SetTagsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		TagsResource: &computepb.Tags{Items: []string{"web"}, Fingerprint: proto.String(fp)}})
	wantHTTPError(t, err, 412, "fingerprint")
	_, err = e.instances.SetTags(e.ctx, &computepb.SetTagsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		TagsResource: &computepb.Tags{Items: []string{"Bad_Tag"}, Fingerprint: got.GetTags().Fingerprint}})
	wantHTTPError(t, err, 400, "tags.items[0]")

	// Scheduling is checked as at creation; a valid change lands on a running VM.
	_, err = e.instances.SetScheduling(e.ctx, &computepb.SetSchedulingInstanceRequest{Project: project, Zone: zone, Instance: "a",
		SchedulingResource: &computepb.Scheduling{OnHostMaintenance: proto.String("SOMETIMES")}})
	wantHTTPError(t, err, 400, "'scheduling.onHostMaintenance'")
	e.mustWait(e.instances.SetScheduling(e.ctx, &computepb.SetSchedulingInstanceRequest{Project: project, Zone: zone, Instance: "a",
		SchedulingResource: &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE"), AutomaticRestart: proto.Bool(false)}}))
	if sc := e.mustGet("a").GetScheduling(); sc.GetOnHostMaintenance() != "TERMINATE" || sc.GetAutomaticRestart() || sc.GetProvisioningModel() != "STANDARD" {
		t.Errorf("scheduling = %v", sc)
	}

	// Leaving the provisioning model out keeps it: a Spot VM stays Spot.
	spot := vm("spot", "e2-standard-4")
	spot.Scheduling = &computepb.Scheduling{ProvisioningModel: proto.String("SPOT")}
	e.mustInsert(spot)
	e.mustWait(e.instances.SetScheduling(e.ctx, &computepb.SetSchedulingInstanceRequest{Project: project, Zone: zone, Instance: "spot",
		SchedulingResource: &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE")}}))
	if sc := e.mustGet("spot").GetScheduling(); sc.GetProvisioningModel() != "SPOT" || sc.GetAutomaticRestart() || sc.GetInstanceTerminationAction() != "STOP" {
		t.Errorf("spot scheduling after setScheduling = %v", sc)
	}

	e.mustWait(e.instances.SetDeletionProtection(e.ctx, &computepb.SetDeletionProtectionInstanceRequest{Project: project, Zone: zone, Resource: "a", DeletionProtection: proto.Bool(true)}))
	_, err = e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "a"})
	wantHTTPError(t, err, 400, "protected against deletion")
	e.mustWait(e.instances.SetDeletionProtection(e.ctx, &computepb.SetDeletionProtectionInstanceRequest{Project: project, Zone: zone, Resource: "a", DeletionProtection: proto.Bool(false)}))
	e.mustWait(e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "a"}))
}

// A data disk attaches to one VM read-write; a second VM gets 400 "already being used"; detaching frees it.
func TestAttachDetachDisk(t *testing.T) {
	e := newEnv(t)
	disks, err := compute.NewDisksRESTClient(e.ctx, option.WithEndpoint(e.url+"/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	e.mustInsert(vm("a", "e2-standard-4"))
	e.mustInsert(vm("b", "e2-standard-4"))
	e.mustWait(disks.Insert(e.ctx, &computepb.InsertDiskRequest{Project: project, Zone: zone, DiskResource: &computepb.Disk{Name: proto.String("data"), SizeGb: proto.Int64(100)}}))
	attach := func(inst string) error {
		return e.wait(e.instances.AttachDisk(e.ctx, &computepb.AttachDiskInstanceRequest{Project: project, Zone: zone, Instance: inst,
			AttachedDiskResource: &computepb.AttachedDisk{Source: proto.String("zones/" + zone + "/disks/data")}}))
	}
	if err := attach("a"); err != nil {
		t.Fatal(err)
	}
	got := e.mustGet("a")
	if n := len(got.GetDisks()); n != 2 {
		t.Fatalf("a has %d disks, want 2", n)
	}
	ad := got.GetDisks()[1]
	if ad.GetDeviceName() != "persistent-disk-1" || ad.GetMode() != "READ_WRITE" || ad.GetDiskSizeGb() != 100 || ad.GetAutoDelete() || ad.GetIndex() != 1 {
		t.Errorf("attached disk = %v", ad)
	}
	d, err := disks.Get(e.ctx, &computepb.GetDiskRequest{Project: project, Zone: zone, Disk: "data"})
	if err != nil || len(d.GetUsers()) != 1 || d.GetUsers()[0] != got.GetSelfLink() {
		t.Fatalf("disk users = %v (%v), want [%s]", d.GetUsers(), err, got.GetSelfLink())
	}
	wantHTTPError(t, attach("b"), 400, "is already being used by 'projects/"+project+"/zones/"+zone+"/instances/a'")
	// Growing the disk shows in the VM's disks[].diskSizeGb.
	e.mustWait(disks.Resize(e.ctx, &computepb.ResizeDiskRequest{Project: project, Zone: zone, Disk: "data",
		DisksResizeRequestResource: &computepb.DisksResizeRequest{SizeGb: proto.Int64(200)}}))
	if got := e.mustGet("a").GetDisks()[1].GetDiskSizeGb(); got != 200 {
		t.Errorf("attached disk size after resize = %d, want 200", got)
	}
	_, err = e.instances.AttachDisk(e.ctx, &computepb.AttachDiskInstanceRequest{Project: project, Zone: zone, Instance: "a",
		AttachedDiskResource: &computepb.AttachedDisk{Source: proto.String("zones/" + zone + "/disks/nope")}})
	wantHTTPError(t, err, 404, "disks/nope' was not found")

	_, err = e.instances.DetachDisk(e.ctx, &computepb.DetachDiskInstanceRequest{Project: project, Zone: zone, Instance: "a", DeviceName: "nope"})
	wantHTTPError(t, err, 400, "'deviceName'")
	_, err = e.instances.DetachDisk(e.ctx, &computepb.DetachDiskInstanceRequest{Project: project, Zone: zone, Instance: "a", DeviceName: "persistent-disk-0"})
	wantHTTPError(t, err, 400, "boot disk")
	e.mustWait(e.instances.DetachDisk(e.ctx, &computepb.DetachDiskInstanceRequest{Project: project, Zone: zone, Instance: "a", DeviceName: "persistent-disk-1"}))
	if n := len(e.mustGet("a").GetDisks()); n != 1 {
		t.Errorf("a has %d disks after detach, want 1", n)
	}
	if d, _ := disks.Get(e.ctx, &computepb.GetDiskRequest{Project: project, Zone: zone, Disk: "data"}); len(d.GetUsers()) != 0 {
		t.Errorf("disk users after detach = %v", d.GetUsers())
	}
	if err := attach("b"); err != nil {
		t.Fatalf("attach to b after detach from a: %v", err)
	}
}

func TestAccessConfigsAndUpdateNetworkInterface(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-4"))
	add := func() error {
		return e.wait(e.instances.AddAccessConfig(e.ctx, &computepb.AddAccessConfigInstanceRequest{Project: project, Zone: zone, Instance: "a",
			NetworkInterface: "nic0", AccessConfigResource: &computepb.AccessConfig{Name: proto.String("external-nat")}}))
	}
	if err := add(); err != nil {
		t.Fatal(err)
	}
	nic := e.mustGet("a").GetNetworkInterfaces()[0]
	if acs := nic.GetAccessConfigs(); len(acs) != 1 || acs[0].GetNatIP() == "" || acs[0].GetType() != "ONE_TO_ONE_NAT" || acs[0].GetNetworkTier() != "PREMIUM" {
		t.Fatalf("access configs = %v", acs)
	}
	wantHTTPError(t, add(), 400, "At most one access config currently supported.")
	_, err := e.instances.AddAccessConfig(e.ctx, &computepb.AddAccessConfigInstanceRequest{Project: project, Zone: zone, Instance: "a",
		NetworkInterface: "nic7", AccessConfigResource: &computepb.AccessConfig{}})
	wantHTTPError(t, err, 400, "'networkInterface'")
	_, err = e.instances.DeleteAccessConfig(e.ctx, &computepb.DeleteAccessConfigInstanceRequest{Project: project, Zone: zone, Instance: "a", NetworkInterface: "nic0", AccessConfig: "other"})
	wantHTTPError(t, err, 400, "'accessConfig'")
	e.mustWait(e.instances.DeleteAccessConfig(e.ctx, &computepb.DeleteAccessConfigInstanceRequest{Project: project, Zone: zone, Instance: "a", NetworkInterface: "nic0", AccessConfig: "external-nat"}))
	nic = e.mustGet("a").GetNetworkInterfaces()[0]
	if len(nic.GetAccessConfigs()) != 0 {
		t.Fatalf("access configs after delete = %v", nic.GetAccessConfigs())
	}

	// updateNetworkInterface is guarded by the interface's fingerprint.
	upd := func(fp *string) error {
		return e.wait(e.instances.UpdateNetworkInterface(e.ctx, &computepb.UpdateNetworkInterfaceInstanceRequest{Project: project, Zone: zone, Instance: "a",
			NetworkInterface: "nic0", NetworkInterfaceResource: &computepb.NetworkInterface{Fingerprint: fp,
				AliasIpRanges: []*computepb.AliasIpRange{{IpCidrRange: proto.String("10.0.8.0/24")}}}}))
	}
	wantHTTPError(t, upd(proto.String("c3RhbGU=")), 412, "fingerprint")
	if err := upd(nic.Fingerprint); err != nil {
		t.Fatal(err)
	}
	after := e.mustGet("a").GetNetworkInterfaces()[0]
	if r := after.GetAliasIpRanges(); len(r) != 1 || r[0].GetIpCidrRange() != "10.0.8.0/24" || after.GetFingerprint() == nic.GetFingerprint() {
		t.Errorf("after update: aliasIpRanges=%v fingerprint %s (was %s)", r, after.GetFingerprint(), nic.GetFingerprint())
	}
	wantHTTPError(t, upd(nic.Fingerprint), 412, "fingerprint")
}
