package goodputplan

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// valid is a configuration check accepts: 1,024 H100s for 30 days with a
// 30 s checkpoint. Unset attributes are null, as Terraform sends them.
func valid() model {
	return model{
		MachineType:           types.StringValue("a3-megagpu-8g"),
		Nodes:                 types.Int64Value(128),
		JobLengthHours:        types.Float64Value(720),
		CheckpointCostSeconds: types.Float64Value(30),
	}
}

// Every rule of the configuration names its attribute; the acceptance test
// proves a few of them through terraform at plan time.
func TestCheck(t *testing.T) {
	if _, d, ok := check(valid()); !ok || d.HasError() {
		t.Fatalf("valid configuration refused: %v", d)
	}
	f := types.Float64Value
	i := types.Int64Value
	s := types.StringValue
	storage := func(m *model, target string, gib float64) {
		m.CheckpointCostSeconds = types.Float64Null()
		m.CheckpointStorage, m.CheckpointSizeGiB = s(target), f(gib)
	}
	cases := []struct {
		name string
		mut  func(*model)
		attr string
		want string
	}{
		{"zero nodes", func(m *model) { m.Nodes = i(0) }, "nodes", "nodes: a job needs at least 1 node, got 0"},
		{"negative spares", func(m *model) { m.Spares = i(-1) }, "spares", "spares: must not be negative, got -1"},
		{"negative max spares", func(m *model) { m.MaxSpares = i(-2) }, "max_spares", "max_spares: must not be negative"},
		{"no job length", func(m *model) { m.JobLengthHours = f(0) }, "job_length_hours", "job_length_hours: must be a positive number of hours, got 0"},
		{"negative failure rate", func(m *model) { m.NodeMTBFHours = f(-5) }, "node_mtbf_hours", "node_mtbf_hours: must be a positive number of hours"},
		{"zero MTBF", func(m *model) { m.NodeMTBFHours = f(0) }, "node_mtbf_hours", "node_mtbf_hours: must be a positive number of hours"},
		{"negative detection", func(m *model) { m.DetectMinutes = f(-1) }, "detect_minutes", "detect_minutes: must be zero or more minutes"},
		{"negative swap", func(m *model) { m.SwapMinutes = f(-1) }, "swap_minutes", "swap_minutes: must be zero or more minutes"},
		{"negative repair", func(m *model) { m.RepairMinutes = f(-1) }, "repair_minutes", "repair_minutes: must be zero or more minutes"},
		{"negative restart", func(m *model) { m.RestartMinutes = f(-1) }, "restart_minutes", "restart_minutes: must be zero or more minutes"},
		{"unknown recovery", func(m *model) { m.Recovery = s("prayer") }, "recovery", `recovery: "prayer" is not a recovery regime; use one of manual, automatic`},
		{"unknown machine", func(m *model) { m.MachineType = s("a9-giant") }, "machine_type", `machine_type: "a9-giant" is not a machine type`},
		{"no published MTBF", func(m *model) { m.MachineType = s("g2-standard-48") }, "node_mtbf_hours", `node_mtbf_hours: required for machine type g2-standard-48: no published reliability figure for profile "g2"`},
		{"negative cost", func(m *model) { m.CheckpointCostSeconds = f(-1) }, "checkpoint_cost_seconds", "checkpoint_cost_seconds: must be zero or more seconds"},
		{"negative persist", func(m *model) { m.AsyncPersistSeconds = f(-1) }, "async_persist_seconds", "async_persist_seconds: must be zero or more seconds"},
		{"checkpoint longer than the job", func(m *model) {
			m.JobLengthHours, m.CheckpointCostSeconds = f(1), f(3000)
			m.AsyncPersistSeconds = f(600)
		},
			"checkpoint_cost_seconds", "checkpoint_cost_seconds: a checkpoint takes 1h0m0s, as long as the whole job"},
		{"free checkpoint, no interval", func(m *model) { m.CheckpointCostSeconds = f(0) }, "checkpoint_interval_minutes", "checkpoint_interval_minutes: required when a checkpoint pauses"},
		{"zero interval", func(m *model) { m.CheckpointIntervalMinute = f(0) }, "checkpoint_interval_minutes", "checkpoint_interval_minutes: must be a positive number of minutes"},
		{"no checkpoint", func(m *model) { m.CheckpointCostSeconds = types.Float64Null() }, "checkpoint_cost_seconds", "checkpoint_cost_seconds: one of checkpoint_cost_seconds or checkpoint_storage"},
		{"cost and storage", func(m *model) { m.CheckpointStorage, m.CheckpointSizeGiB = s("bucket"), f(10) }, "checkpoint_storage", "checkpoint_storage: conflicts with checkpoint_cost_seconds"},
		{"async flag with a cost", func(m *model) { m.AsyncCheckpoints = types.BoolValue(true) }, "async_checkpoints", "async_checkpoints: can only be set together with checkpoint_storage"},
		{"size with a cost", func(m *model) { m.CheckpointSizeGiB = f(10) }, "checkpoint_size_gib", "checkpoint_size_gib: can only be set together with checkpoint_storage"},
		{"persist with storage", func(m *model) { storage(m, "bucket", 10); m.AsyncPersistSeconds = f(5) }, "async_persist_seconds", "async_persist_seconds: can only be set together with checkpoint_cost_seconds"},
		{"unknown storage", func(m *model) { storage(m, "tape", 10) }, "checkpoint_storage", `checkpoint_storage: "tape" is not one of lustre, local-ssd, bucket`},
		{"storage without size", func(m *model) { storage(m, "bucket", 10); m.CheckpointSizeGiB = types.Float64Null() }, "checkpoint_size_gib", "checkpoint_size_gib: required with checkpoint_storage"},
		{"negative size", func(m *model) { storage(m, "bucket", -3) }, "checkpoint_size_gib", "checkpoint_size_gib: must be a positive number of GiB"},
		{"lustre without tier", func(m *model) { storage(m, "lustre", 10); m.LustreCapacityGiB = i(36000) }, "lustre_throughput", `lustre_throughput: required with checkpoint_storage = "lustre" (MB/s per TiB: 125, 250, 500, 1000)`},
		{"lustre without capacity", func(m *model) { storage(m, "lustre", 10); m.LustreThroughput = i(1000) }, "lustre_capacity_gib", `lustre_capacity_gib: required with checkpoint_storage = "lustre"`},
		{"lustre tier not offered", func(m *model) { storage(m, "lustre", 10); m.LustreThroughput, m.LustreCapacityGiB = i(300), i(36000) }, "lustre_throughput", "lustre_throughput: per_unit_storage_throughput 300 is not offered"},
		{"lustre capacity off the tier", func(m *model) { storage(m, "lustre", 10); m.LustreThroughput, m.LustreCapacityGiB = i(1000), i(1000) }, "lustre_capacity_gib", "lustre_capacity_gib: capacity_gib 1000 is below the minimum 9000"},
		{"lustre sizes on a bucket", func(m *model) { storage(m, "bucket", 10); m.LustreCapacityGiB = i(36000) }, "lustre_capacity_gib", `lustre_capacity_gib: can only be set together with checkpoint_storage = "lustre"`},
		{"local SSD on a machine without", func(m *model) {
			storage(m, "local-ssd", 10)
			m.MachineType, m.NodeMTBFHours = s("n2-standard-8"), f(1000)
		}, "checkpoint_storage", "checkpoint_storage: machine type n2-standard-8 has no bundled local SSD"},
		{"derived checkpoint longer than the job", func(m *model) { storage(m, "bucket", 10000); m.Nodes, m.JobLengthHours = i(1), f(0.1) },
			"checkpoint_storage", "checkpoint_storage: a checkpoint takes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := valid()
			tc.mut(&m)
			_, d, ok := check(m)
			if ok {
				t.Fatal("accepted")
			}
			found := false
			for _, e := range d.Errors() {
				if strings.Contains(e.Detail(), tc.want) {
					found = true
					if a, isAttr := e.(interface{ Path() path.Path }); !isAttr || !a.Path().Equal(path.Root(tc.attr)) {
						t.Errorf("error %q is not on attribute %s", e.Detail(), tc.attr)
					}
				}
			}
			if !found {
				t.Errorf("errors %v lack %q", d.Errors(), tc.want)
			}
		})
	}
}

// Unknown inputs (known only after apply) are not errors, and no plan is
// built from them.
func TestCheckUnknown(t *testing.T) {
	m := valid()
	m.Nodes = types.Int64Unknown()
	if _, d, ok := check(m); ok || d.HasError() {
		t.Errorf("unknown nodes: ok=%v diags=%v", ok, d)
	}
	m = valid()
	m.CheckpointCostSeconds = types.Float64Null()
	m.CheckpointStorage, m.CheckpointSizeGiB = types.StringValue("bucket"), types.Float64Unknown()
	if _, d, ok := check(m); ok || d.HasError() {
		t.Errorf("unknown size: ok=%v diags=%v", ok, d)
	}
}
