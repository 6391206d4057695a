package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// fakeTools answers the GPU tools from the documented samples in testdata/health.
func fakeTools(t *testing.T, outputs map[string]string) func(context.Context, string, ...string) (string, error) {
	return func(_ context.Context, name string, args ...string) (string, error) {
		if len(args) > 0 {
			if out, ok := outputs[name+" "+args[0]]; ok {
				return out, nil
			}
		}
		out, ok := outputs[name]
		if !ok {
			return "", fmt.Errorf("%s is not installed", name)
		}
		return out, nil
	}
}

func TestHealthChecksFailWithEvidence(t *testing.T) {
	tools := fakeTools(t, map[string]string{
		"nvidia-smi":        readHealthSample(t, "nvidia-smi-query-h100.csv"),
		"dmesg":             readHealthSample(t, "dmesg-xid.txt"),
		"nvidia-smi nvlink": readHealthSample(t, "nvidia-smi-nvlink-e.txt"),
		"dcgmi":             readHealthSample(t, "dcgmi-diag-r2-fail.json"),
		"all_reduce_perf":   readHealthSample(t, "all_reduce_perf-a3.txt"),
	})
	r := &healthRunner{gpus: 8, tool: tools, alive: func(string) bool { return false }}
	cases := []struct {
		spec cc.HealthCheckSpec
		want string // "" passes
	}{
		{cc.HealthCheckSpec{Name: cc.CheckGPU, ExpectedGPUs: 8}, "7 of 8 GPUs visible"},
		{cc.HealthCheckSpec{Name: cc.CheckGPU, ExpectedGPUs: 7}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckGPU, ExpectedGPUs: 7, XIDs: []int{79}}, "XID 79 on PCI:0000:04:00"},
		{cc.HealthCheckSpec{Name: cc.CheckECC, MaxUncorrectedECC: 0}, "GPU 2 has 3 uncorrected volatile ECC errors"},
		{cc.HealthCheckSpec{Name: cc.CheckECC, MaxUncorrectedECC: 3}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckNVLink}, "GPU 1 NVLink 0 has 12 Recovery Errors (limit 0)"},
		{cc.HealthCheckSpec{Name: cc.CheckNVLink, MaxNVLinkErrors: 12}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckDCGM, DCGMLevel: 2}, "level 2 Hardware/GPU Memory Fail on GPU 1"},
		{cc.HealthCheckSpec{Name: cc.CheckNCCL, MinBusBandwidthGBps: 150}, "bus bandwidth 97.6 GB/s below 150 GB/s"},
		{cc.HealthCheckSpec{Name: cc.CheckNCCL, MinBusBandwidthGBps: 60}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckDisk, Paths: []string{t.TempDir()}, MinFreeGB: 1e9}, "GB free (minimum 1e+09 GB)"},
		{cc.HealthCheckSpec{Name: cc.CheckDisk, Paths: []string{t.TempDir()}, MinFreeGB: 0}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckMounts, Paths: []string{t.TempDir()}, TimeoutSeconds: 5}, ""},
		{cc.HealthCheckSpec{Name: cc.CheckMounts, Paths: []string{"/nonexistent-mount"}, TimeoutSeconds: 5}, "/nonexistent-mount: "},
		{cc.HealthCheckSpec{Name: cc.CheckSlurmd}, "slurmd is not running"},
		{cc.HealthCheckSpec{Name: cc.CheckMunge}, "munged is not running"},
	}
	for _, c := range cases {
		got := r.check(context.Background(), c.spec)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: evidence %q, want %q", c.spec, got, c.want)
		}
	}
	// A node without GPUs skips the GPU checks even where a plan lists them.
	cpu := &healthRunner{gpus: 0, tool: tools, alive: func(string) bool { return true }}
	if got := cpu.run(context.Background(), []cc.HealthCheckSpec{{Name: cc.CheckECC}, {Name: cc.CheckDCGM, DCGMLevel: 1}, {Name: cc.CheckSlurmd}}); len(got) != 0 {
		t.Errorf("a CPU node failed %+v", got)
	}
	// A missing tool is a failure with the reason, not a pass.
	none := &healthRunner{gpus: 8, tool: fakeTools(t, nil)}
	if got := none.check(context.Background(), cc.HealthCheckSpec{Name: cc.CheckGPU, ExpectedGPUs: 8}); !strings.Contains(got, "nvidia-smi is not installed") {
		t.Errorf("missing nvidia-smi gave %q", got)
	}
}

func TestEscalationLadder(t *testing.T) {
	pol := cc.HealthPolicy{Escalation: []string{cc.ActionReboot, cc.ActionReimage, cc.ActionReplace}, EscalationWindowHours: 2}
	ph := cc.PartitionHealth{Checks: []cc.HealthCheckSpec{{Name: cc.CheckECC, Action: cc.ActionReboot}, {Name: cc.CheckDisk, Action: cc.ActionDrain}}}
	now := time.Now()
	done := []HealthRepair{{Node: "n1", Action: cc.ActionReboot, Started: now.Add(-time.Hour)}, {Node: "n2", Action: cc.ActionReboot, Started: now.Add(-3 * time.Hour)}}
	for _, c := range []struct{ node, check, want string }{
		{"n0", cc.CheckECC, cc.ActionReboot},  // first failure: the check's action
		{"n1", cc.CheckECC, cc.ActionReimage}, // again within the window: next step
		{"n2", cc.CheckECC, cc.ActionReboot},  // last repair outside the window
		{"n1", cc.CheckDisk, cc.ActionDrain},  // drain-only checks never escalate
	} {
		if got := nextAction(pol, ph, c.check, c.node, done, now); got != c.want {
			t.Errorf("%s failing %s: %s, want %s", c.node, c.check, got, c.want)
		}
	}
	done = append(done, HealthRepair{Node: "n1", Action: cc.ActionReplace, Started: now})
	if got := nextAction(pol, ph, cc.CheckECC, "n1", done, now); got != cc.ActionReplace {
		t.Errorf("past the top of the ladder: %s, want the last step repeated", got)
	}
	// Unrepairable GPU memory stays with the host: a ladder step below replace never applies.
	ph.Checks = append(ph.Checks, cc.HealthCheckSpec{Name: cc.CheckUnrepairableMemory, Action: cc.ActionReplace})
	done = append(done, HealthRepair{Node: "n3", Action: cc.ActionDrain, Started: now})
	if got := nextAction(pol, ph, cc.CheckUnrepairableMemory, "n3", done, now); got != cc.ActionReplace {
		t.Errorf("unrepairable memory after an earlier repair: %s, want replace", got)
	}
}
