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
	// The three (zero nodes, a negative failure rate, a checkpoint
	// longer than the job) and one cross-attribute rule; TestCheck covers
	// every rule of the configuration without terraform.
	cases := []struct {
		name, body, want string
	}{
		{"zero nodes", job + cost + "  nodes = 0\n", `nodes: a job needs at least 1 node, got 0`},
		{"negative failure rate", job + nodes + cost + "  node_mtbf_hours = -5\n", `node_mtbf_hours: must be a positive number of hours`},
		{"checkpoint longer than the job", "  machine_type = \"a3-megagpu-8g\"\n" + nodes + "  job_length_hours = 1\n  checkpoint_cost_seconds = 7200\n",
			`checkpoint_cost_seconds: a checkpoint takes 2h0m0s, as long as the whole job`},
		{"derived checkpoint longer than the job", "  machine_type = \"a3-megagpu-8g\"\n  nodes = 1\n  job_length_hours = 0.1\n" +
			"  checkpoint_storage = \"bucket\"\n  checkpoint_size_gib = 10000\n", `checkpoint_storage: a checkpoint takes .*, as long as the whole job`},
		{"lustre capacity off the tier", job + nodes + "  checkpoint_storage = \"lustre\"\n  checkpoint_size_gib = 10\n  lustre_throughput = 1000\n  lustre_capacity_gib = 1000\n",
			`lustre_capacity_gib: capacity_gib 1000 is below the minimum 9000`},
		{"profile without a published MTBF", "  machine_type = \"g2-standard-48\"\n  job_length_hours = 1\n" + nodes + cost,
			`node_mtbf_hours: required for machine type g2-standard-48: no published reliability figure for profile "g2"`},
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
