package goodputplan_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan time, names the attribute, and never reaches
// an API (the data source has none to reach).
func TestAccGoodputPlan_invalidInput(t *testing.T) {
	env := acctest.New(t)
	const job = "  machine_type = \"a3-megagpu-8g\"\n  job_length_hours = 720\n"
	const nodes = "  nodes = 128\n"
	const cost = "  checkpoint_cost_seconds = 30\n"
	cases := []struct {
		name, body, want string
	}{
		{"zero nodes", job + cost + "  nodes = 0\n", `nodes: a job needs at least 1 node, got 0`},
		{"negative failure rate", job + nodes + cost + "  node_mtbf_hours = -5\n", `node_mtbf_hours: must be a positive number of hours`},
		{"checkpoint longer than the job", "  machine_type = \"a3-megagpu-8g\"\n" + nodes + "  job_length_hours = 1\n  checkpoint_cost_seconds = 7200\n",
			`checkpoint_cost_seconds: a checkpoint takes 2h0m0s, as long as the whole job`},
		{"derived checkpoint longer than the job", "  machine_type = \"a3-megagpu-8g\"\n  nodes = 1\n  job_length_hours = 0.1\n" +
			"  checkpoint_storage = \"bucket\"\n  checkpoint_size_gib = 10000\n", `checkpoint_storage: a checkpoint takes .*, as long as the whole job`},
		{"negative spares", job + nodes + cost + "  spares = -1\n", `spares: must not be negative, got -1`},
		{"no job length", "  machine_type = \"a3-megagpu-8g\"\n" + nodes + cost + "  job_length_hours = 0\n", `job_length_hours: must be a positive number of hours, got 0`},
		{"negative repair time", job + nodes + cost + "  repair_minutes = -1\n", `repair_minutes: must be zero or more minutes, got -1`},
		{"unknown recovery", job + nodes + cost + "  recovery = \"prayer\"\n", `recovery: "prayer" is not a recovery regime; use one of manual, automatic`},
		{"unknown machine type", "  machine_type = \"a9-giant\"\n  job_length_hours = 1\n" + nodes + cost, `machine_type: "a9-giant" is not a machine type`},
		{"profile without a published MTBF", "  machine_type = \"g2-standard-48\"\n  job_length_hours = 1\n" + nodes + cost,
			`node_mtbf_hours: required for machine type g2-standard-48: no published reliability figure for profile "g2"`},
		{"no checkpoint cost", job + nodes, `checkpoint_cost_seconds: one of checkpoint_cost_seconds or checkpoint_storage`},
		{"cost and storage", job + nodes + cost + "  checkpoint_storage = \"bucket\"\n  checkpoint_size_gib = 10\n", `checkpoint_storage: conflicts with checkpoint_cost_seconds`},
		{"unknown storage", job + nodes + "  checkpoint_storage = \"tape\"\n  checkpoint_size_gib = 10\n", `checkpoint_storage: "tape" is not one of lustre, local-ssd, bucket`},
		{"storage without size", job + nodes + "  checkpoint_storage = \"bucket\"\n", `checkpoint_size_gib: required with checkpoint_storage`},
		{"lustre without tier", job + nodes + "  checkpoint_storage = \"lustre\"\n  checkpoint_size_gib = 10\n  lustre_capacity_gib = 36000\n",
			`lustre_throughput: required with checkpoint_storage = "lustre"`},
		{"lustre capacity off the tier", job + nodes + "  checkpoint_storage = \"lustre\"\n  checkpoint_size_gib = 10\n  lustre_throughput = 1000\n  lustre_capacity_gib = 1000\n",
			`lustre_capacity_gib: capacity_gib 1000 is below the minimum 9000`},
		{"async flag with a given cost", job + nodes + cost + "  async_checkpoints = true\n", `async_checkpoints: can only be set together with checkpoint_storage`},
		{"local SSD on a machine without", "  machine_type = \"n2-standard-8\"\n  job_length_hours = 10\n  nodes = 2\n  node_mtbf_hours = 1000\n" +
			"  checkpoint_storage = \"local-ssd\"\n  checkpoint_size_gib = 10\n", `checkpoint_storage: machine type n2-standard-8 has no bundled local SSD`},
		{"free checkpoint without an interval", job + nodes + "  checkpoint_cost_seconds = 0\n", `checkpoint_interval_minutes: required when a checkpoint pauses training for no time`},
		{"zero interval", job + nodes + cost + "  checkpoint_interval_minutes = 0\n", `checkpoint_interval_minutes: must be a positive number of minutes, got 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      env.Config(plan(tc.body)),
					PlanOnly:    true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
		})
	}
	if n := env.Calls().Total; n != 0 {
		t.Fatalf("invalid configurations made %d API calls; want 0: %v", n, env.Calls().Methods)
	}
}
