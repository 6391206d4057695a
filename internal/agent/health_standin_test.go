package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
)

// standInRunner runs the checks against the local cloud's GPU tool stand-ins, executed as the
// real tools would be.
func standInRunner(t *testing.T, machineType string, f gpustandin.Fault) *healthRunner {
	t.Helper()
	tools, ok := gpustandin.Tools(machineType, "vm-0", f)
	if !ok {
		t.Fatalf("%s has no GPU tools", machineType)
	}
	dir := t.TempDir()
	for name, body := range tools {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &healthRunner{gpus: 8, alive: func(string) bool { return true }, tool: func(ctx context.Context, name string, args ...string) (string, error) {
		if name == "dmesg" {
			return "", nil
		}
		return runCommand(ctx, nil, filepath.Join(dir, name), args...)
	}}
}

// The stand-ins print what the parsers of the real tools read: a healthy A3 node passes every GPU
// check, and each injected fault fails its check with the evidence.
func TestGPUStandInsFailTheChecks(t *testing.T) {
	checks := []cc.HealthCheckSpec{{Name: cc.CheckGPU, ExpectedGPUs: 8}, {Name: cc.CheckECC}, {Name: cc.CheckNVLink},
		{Name: cc.CheckDCGM, DCGMLevel: 2}, {Name: cc.CheckNCCL, MinBusBandwidthGBps: 60},
		{Name: cc.CheckRemappedRows}, {Name: cc.CheckUnrepairableMemory}}
	if got := standInRunner(t, "a3-highgpu-8g", gpustandin.Fault{}).run(context.Background(), checks); len(got) != 0 {
		t.Fatalf("a healthy node failed %+v", got)
	}
	for _, c := range []struct {
		fault gpustandin.Fault
		check string
		want  string
	}{
		{gpustandin.Fault{MissingGPUs: 1}, cc.CheckGPU, "7 of 8 GPUs visible"},
		{gpustandin.Fault{UncorrectedECC: 2}, cc.CheckECC, "GPU 0 has 2 uncorrected volatile ECC errors"},
		{gpustandin.Fault{NVLinkErrors: 5}, cc.CheckNVLink, "GPU 0 NVLink 0 has 5 Replay Errors"},
		{gpustandin.Fault{DCGMFail: true}, cc.CheckDCGM, "level 2 Hardware/GPU Memory Fail on GPU 0"},
		{gpustandin.Fault{BusBandwidthGBps: 12}, cc.CheckNCCL, "bus bandwidth 12.0 GB/s below 60 GB/s"},
		{gpustandin.Fault{RemappedRowsPending: true}, cc.CheckRemappedRows, "GPU 00000000:04:00.0: remapped rows pending"},
		{gpustandin.Fault{RemappingFailure: true}, cc.CheckUnrepairableMemory, "GPU 00000000:04:00.0: row remapping failure occurred"},
		{gpustandin.Fault{UnrepairableMemory: true}, cc.CheckUnrepairableMemory, "GPU 00000000:04:00.0: unrepairable memory"},
	} {
		got := standInRunner(t, "a3-highgpu-8g", c.fault).run(context.Background(), checks)
		found := false
		for _, f := range got {
			if f.Check == c.check && strings.Contains(f.Evidence, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("fault %+v: failures %+v, want %s: %q", c.fault, got, c.check, c.want)
		}
	}
	if _, ok := gpustandin.Tools("n2-standard-4", "vm", gpustandin.Fault{}); ok {
		t.Error("a CPU machine type got GPU tools")
	}
}
