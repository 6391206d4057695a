package trainingcluster_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A controller (and login VMs) the region's quota cannot hold fails at plan, one error naming
// every shortfall, and nothing of the blueprint is created (before, the network and /home were
// created and the controller's insert failed on its quota).
func TestAccTrainingCluster_planQuota(t *testing.T) {
	env := acctest.New(t)
	env.SetQuota(acctest.Region, "N2_CPUS", 16) // the controller is n2-standard-32
	env.SetQuota(acctest.Region, "INSTANCES", 2)
	cfg := storageConfig("hcq-net") + clusterConfig("hcq", "https://example.com/hypercompute-agent", fakeSHA,
		unprotected+"  controller = { machine_type = \"n2-standard-32\" }\n  login = { count = 2 }\n  timeouts = { create = \"1m\" }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			PreConfig: env.ResetCalls,
			Config:    env.Config(cfg),
			ExpectError: acctest.ErrorMatching(`(?s)The cluster's VMs do not fit.*` +
				`Found at plan, before anything is created: regional quota in us-central1 does not cover the controller \(n2-standard-32\) and 2 login VMs \(n2-standard-4\): ` +
				`INSTANCES needs 3, 2 available \(limit 2, in use 0\); N2_CPUS needs 40, 16 available \(limit 16, in use 0\)`),
		}},
	})
	var writes []string
	for m, c := range env.Calls().Methods {
		if c.Mutating && c.Count > 0 {
			writes = append(writes, fmt.Sprintf("%s×%d", m, c.Count))
		}
	}
	if len(writes) > 0 {
		t.Errorf("a plan that cannot fit made mutating calls: %s", strings.Join(writes, ", "))
	}
	if env.CallCount("compute.regions.get") == 0 {
		t.Error("the plan did not read the region's quotas")
	}
}

// A blueprint whose cluster and partition fit the quota exactly applies: the apply's own re-plan
// of the partition, made once the cluster exists, counts the controller through the region's usage
// and not a second time through the plan-time sum. One static node more fails at plan.
func TestAccTrainingCluster_planQuotaExactFit(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	// Controller n2-standard-8 + one login n2-standard-4 + two static n2-standard-4 nodes.
	env.SetQuota(acctest.Region, "N2_CPUS", 8+4+2*4)
	partition := func(static int) string {
		return fmt.Sprintf(`
resource "hypercompute_node_partition" "cpu" {
  cluster           = hypercompute_training_cluster.test.id
  name              = "cpu"
  machine_type      = "n2-standard-4"
  static_node_count = %d
}
`, static)
	}
	base := storageConfig("hcx-net") + clusterConfig("hcx", "file:///opt/hypercompute-agent", fakeSHA, unprotected)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: withPartitions,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{Config: env.Config(base + partition(2))},
			{
				Config: env.Config(base + partition(3)),
				ExpectError: acctest.ErrorMatching(`regional quota in us-central1 does not cover 1 more n2-standard-4 static nodes: ` +
					`N2_CPUS needs 4, 0 available \(limit 20, in use 20\)`),
			},
		},
	})
}
