package emulator_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
)

// :gpuFault's memory repair faults over HTTP: the answer echoes them, and the nvidia-smi the VM
// boots with prints them in the driver's -q layout on GPU 0; an empty fault heals the GPUs.
func TestAdminGPUFaultMemoryRepair(t *testing.T) {
	env := emulatortest.Start(t)
	ctx := context.Background()
	insertNetwork(t, networksClient(t, env), "vpc")
	insts, err := compute.NewInstancesRESTClient(ctx, env.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := compute.NewSubnetworksRESTClient(ctx, env.ClientOptions()...)
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
	op, err = insts.Insert(ctx, &computepb.InsertInstanceRequest{Project: "p", Zone: "us-central1-a", InstanceResource: &computepb.Instance{
		Name: proto.String("gpu"), MachineType: proto.String("zones/us-central1-a/machineTypes/a3-highgpu-8g"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/us-central1/subnetworks/sub")}},
		Scheduling:        &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE")},
	}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	nvidiaSMI := func(args ...string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), gpustandin.NvidiaSMI)
		if err := os.WriteFile(p, env.Emulator.GPUToolsOf("p", "us-central1-a", "gpu")[gpustandin.NvidiaSMI], 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(p, args...).Output()
		if err != nil {
			t.Fatalf("nvidia-smi %v: %v", args, err)
		}
		return string(out)
	}
	const url = "/emulator/v1/projects/p/zones/us-central1-a/instances/gpu:gpuFault"
	var res struct {
		Fault map[string]any `json:"fault"`
	}
	if code := call(t, env, "POST", url, map[string]any{"remappedRowsPending": true, "unrepairableMemory": true}, &res); code != 200 ||
		res.Fault["remappedRowsPending"] != true || res.Fault["unrepairableMemory"] != true {
		t.Fatalf(":gpuFault: %d %v", code, res.Fault)
	}
	remap, ecc := nvidiaSMI("-q", "-d", "ROW_REMAPPER"), nvidiaSMI("-q", "-d", "ECC")
	for out, want := range map[*string]string{
		&remap: "GPU 00000000:04:00.0\n    Remapped Rows\n        Correctable Error                              : 0\n" +
			"        Inactive Correctable Error                     : 0\n        Uncorrectable Error                            : 1\n" +
			"        Inactive Uncorrectable Error                   : 0\n        Pending                                        : Yes\n" +
			"        Remapping Failure Occurred                     : No\n",
		&ecc: "        TPC Repair Pending                             : No\n        Unrepairable Memory                            : Yes\n\nGPU 00000000:05:00.0\n",
	} {
		if !strings.Contains(*out, want) {
			t.Errorf("nvidia-smi -q after the fault:\n%s\nlacks\n%s", *out, want)
		}
	}
	if n := strings.Count(ecc, ": Yes"); n != 1 {
		t.Errorf("%d faulty values across the GPUs, want GPU 0's one", n)
	}
	if code := call(t, env, "POST", url, map[string]any{}, nil); code != 200 {
		t.Fatalf("healing: %d", code)
	}
	if q := nvidiaSMI("-q"); strings.Contains(q, ": Yes") {
		t.Errorf("healed GPUs still report a fault:\n%s", q)
	}
}
