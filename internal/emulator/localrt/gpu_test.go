package localrt

import (
	"os"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// A VM whose machine type has GPUs boots with the GPU tool stand-ins on its PATH, for the
// catalog's GPUs; a fault told through the admin API shows in them at once, stays through a reset
// (the same hardware) and is left behind when the VM moves to a new host.
func TestGPUToolStandInsFollowTheHost(t *testing.T) {
	c := startCloud(t)
	c.network()
	op, err := c.instances.Insert(c.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String("g2"),
		MachineType: proto.String("zones/" + zone + "/machineTypes/g2-standard-12"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata:          &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("startup-script"), Value: proto.String("echo booted")}}},
		Scheduling:        &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE"), AutomaticRestart: proto.Bool(true)},
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.waitSerial("g2", "startup-script exit status 0", 1, 60*time.Second)
	query := func() string {
		return strings.TrimSpace(c.exec("g2", "sh", "-c", "nvidia-smi --query-gpu=index,name,ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits"))
	}
	if got := query(); got != "0, NVIDIA L4, 0" {
		t.Fatalf("a healthy g2-standard-12 answers %q", got)
	}
	// Its GPU device files, which gres.conf names, exist in its /dev only, beside the machine's
	// devices and their submounts.
	devs := func(vm string) string {
		return strings.TrimSpace(c.exec(vm, "sh", "-c", "stat -c '%n %F %t:%T' /dev/nvidia* 2>/dev/null; test -c /dev/null && test -d /dev/pts && echo null pts"))
	}
	if got, want := devs("g2"), "/dev/nvidia0 character special file c3:0\n/dev/nvidiactl character special file c3:ff\nnull pts"; got != want {
		t.Errorf("the GPU VM's /dev shows %q, want %q", got, want)
	}
	if _, err := os.Stat("/dev/nvidia0"); err == nil {
		t.Error("the VM's GPU device files showed on the machine")
	}
	c.admin("g2", "gpuFault", `{"uncorrectedEcc": 2}`)
	if got := query(); got != "0, NVIDIA L4, 2" {
		t.Fatalf("after the fault: %q", got)
	}
	op, err = c.instances.Reset(c.ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: "g2"})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.waitSerial("g2", "startup-script exit status 0", 2, 60*time.Second)
	if got := query(); got != "0, NVIDIA L4, 2" {
		t.Errorf("a reset healed the GPU: %q", got)
	}
	c.admin("g2", "hostFault", "")
	c.waitSerial("g2", "startup-script exit status 0", 3, 60*time.Second)
	if got := query(); got != "0, NVIDIA L4, 0" {
		t.Errorf("on a new host the fault stayed: %q", got)
	}
	// A machine type without GPUs gets no GPU tools.
	c.createVM("cpu", "echo booted")
	c.waitSerial("cpu", "startup-script exit status 0", 1, 60*time.Second)
	if out := strings.TrimSpace(c.exec("cpu", "sh", "-c", "command -v nvidia-smi || echo none")); out != "none" {
		t.Errorf("an e2-standard-2 VM has nvidia-smi at %s", out)
	}
	if got := devs("cpu"); got != "null pts" {
		t.Errorf("an e2-standard-2 VM's /dev shows %q", got)
	}
}
