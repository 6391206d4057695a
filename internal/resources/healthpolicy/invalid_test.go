package healthpolicy_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan, naming the attribute, before any API call: no cluster even
// exists in this test's cloud.
func TestAccHealthPolicy_invalidInput(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cfg := func(body string) string { return env.Config(policyConfig(cluster, body)) }
	cases := []struct{ name, body, want string }{
		{"unknown check", cfg(`  checks = [{ name = "vibes" }]`), `checks\[0\]\.name`},
		{"unknown schedule", cfg(`  checks = [{ name = "ecc", schedules = ["hourly"] }]`), `schedules`},
		{"unknown action", cfg(`  checks = [{ name = "ecc", action = "pray" }]`), `action`},
		{"dcgm level out of range", cfg(`  checks = [{ name = "dcgm", dcgm_level = 5 }]`), `checks\[0\]\.dcgm_level 5 is out of range; dcgmi diag runs levels 1 to 4`},
		{"check listed twice", cfg(`  checks = [{ name = "ecc" }, { name = "ecc" }]`), `checks\[1\]\.name: check "ecc" is listed twice`},
		{"relative disk path", cfg(`  checks = [{ name = "disk", paths = ["tmp"] }]`), `checks\[0\]\.paths: "tmp" must be an absolute path`},
		{"negative threshold", cfg(`  checks = [{ name = "ecc", max_uncorrected_ecc = -1 }]`), `checks\[0\]: thresholds must not be negative`},
		{"unknown escalation step", cfg(`  escalation = ["reboot", "pray"]
  checks = [{ name = "ecc" }]`), `escalation`},
		{"percent above 100", cfg(`  limits = { max_unavailable_percent = 150 }
  checks = [{ name = "ecc" }]`), `limits\.max_unavailable_percent 150 must be 0 to 100`},
		{"no checks", cfg(`  checks = []`), `checks`},
		// 0 is how the policy's JSON says "left out": the agent would run the default instead.
		{"interval of 0", cfg(`  interval_seconds = 0
  checks = [{ name = "ecc" }]`), `interval_seconds 0 is out of range: periodic checks run every 1 second or more; leave it out for the default \(60\)`},
		{"no concurrent repairs", cfg(`  limits = { max_concurrent_repairs = 0 }
  checks = [{ name = "ecc" }]`), `limits\.max_concurrent_repairs 0 would never let a repair start: use 1 or more, or leave it out for the default \(1\)`},
		{"negative spares", cfg(`  spare_node_count = -1
  checks = [{ name = "ecc" }]`), `spare_node_count -1 is out of range; use 0 to 1000`},
		{"unrepairable memory rebooted", cfg(`  checks = [{ name = "unrepairable_memory", action = "reboot" }]`),
			`checks\[0\]\.action "reboot" cannot repair unrepairable_memory: the faulty GPU memory stays with the physical host`},
		{"unrepairable memory reimaged", cfg(`  checks = [{ name = "unrepairable_memory", action = "reimage" }]`), `use "replace"`},
		{"memory check misspelled", cfg(`  checks = [{ name = "remapped_row" }]`), `checks\[0\]\.name`},
		{"straggler factor not above 1", cfg(`  checks = [{ name = "straggler", straggler_factor = 0.9 }]`), `checks\[0\]\.straggler_factor 0\.9 must be above 1`},
		{"bad policy name", env.Config(`
resource "hypercompute_health_policy" "test" {
  cluster = "` + cluster + `"
  name    = "Default Policy"
  checks  = [{ name = "ecc" }]
}`), `name "Default Policy" is invalid`},
		{"not a cluster id", env.Config(policyConfig("hcx", `  checks = [{ name = "ecc" }]`)), `cluster: "hcx" is not a training cluster id`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}

// A partition the cluster does not have, and that no hypercompute_node_partition plans in the
// same operation, is refused at plan, naming the list element and the partitions the cluster has:
// the plan reads the controller, and changes nothing.
func TestAccHealthPolicy_unknownPartition(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hpu")
	env.ResetCalls()
	acctest.PlanFails(t, factories, "not on the cluster",
		env.Config(policyConfig(cluster, `  partitions = ["a3", "h200"]`+"\n"+`  checks = [{ name = "ecc" }]`)),
		`partitions\[1\]: cluster hpu has no partition "h200" \(its partitions: a3, cpu\), and no hypercompute_node_partition of that name is planned in this operation`)
	// A partition planned in the same operation counts for its own name only.
	acctest.PlanFails(t, factories, "another partition planned", env.Config(extraPartition(cluster)+
		policyConfig(cluster, `  partitions = [hypercompute_node_partition.extra.name, "extr"]`+"\n"+`  checks = [{ name = "ecc" }]`)),
		`partitions\[1\]: cluster hpu has no partition "extr" \(its partitions: a3, cpu\)`)
	env.RequireNoMutations(t, "plans of a policy for an unknown partition")
}
