package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
)

// A node runs its partition's checks from the published plan with the tools on PATH: on an L4 VM
// (no NVLink peers; the stand-in prints nothing for nvlink -e, as the real single-GPU H200 did) the
// nvlink check comes back skipped with its reason, while a pending row remap fails remapped_rows.
func TestNodeHealthReportsNoNVLinkLinks(t *testing.T) {
	home := t.TempDir()
	m := cc.Mounts{Home: cc.NFSMount{MountPoint: home}}
	plan := cc.HealthPlan{Partitions: map[string]cc.PartitionHealth{"l4": {MachineType: "g2-standard-12", GPUs: 1, Checks: []cc.HealthCheckSpec{
		{Name: cc.CheckNVLink, Schedules: []string{cc.SchedulePeriodic}},
		{Name: cc.CheckRemappedRows, Schedules: []string{cc.SchedulePeriodic}, Action: cc.ActionReboot},
	}}}}
	b, _ := json.Marshal(plan)
	if err := os.MkdirAll(filepath.Dir(healthPlanPath(m)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(healthPlanPath(m), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fault gpustandin.Fault
		fail  string
	}{{gpustandin.Fault{}, ""}, {gpustandin.Fault{RemappedRowsPending: true}, "remapped rows pending"}} {
		tools, _ := gpustandin.Tools("g2-standard-12", "vm-0", c.fault)
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, gpustandin.NvidiaSMI), tools[gpustandin.NvidiaSMI], 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+":/usr/bin:/bin")
		failures, skipped, err := runNodeHealth(context.Background(), cc.Node{Partition: "l4", Mounts: m}, cc.SchedulePeriodic)
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) != 1 || skipped[0].Check != cc.CheckNVLink || !strings.Contains(skipped[0].Why, "lists no NVLink links") {
			t.Errorf("%+v: skipped %+v, want nvlink not applicable", c.fault, skipped)
		}
		switch {
		case c.fail == "" && len(failures) != 0:
			t.Errorf("a healthy L4 failed %+v", failures)
		case c.fail != "" && (len(failures) != 1 || failures[0].Check != cc.CheckRemappedRows || !strings.Contains(failures[0].Evidence, c.fail)):
			t.Errorf("%+v: failures %+v, want remapped_rows %q", c.fault, failures, c.fail)
		}
	}
}
