package nodepartition_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// blueprint is what a user writes on day one: a network, /home, a cluster and its partitions,
// none of which exists yet.
func blueprint(partitions ...string) string {
	return acctest.ClusterConfig("hpf", "https://example.com/hypercompute-agent", strings.Repeat("ab", 32), `  deletion_protection = false
  timeouts            = { create = "1m" }
`) + strings.Join(partitions, "\n")
}

func gpuPartition(res, name string, static int) string {
	return fmt.Sprintf(`
resource "hypercompute_node_partition" %q {
  cluster           = hypercompute_training_cluster.c.id
  name              = %q
  machine_type      = "a3-highgpu-8g"
  static_node_count = %d
}
`, res, name, static)
}

// A blueprint whose partition exceeds the region's GPU and CPU quota fails at plan, with one
// error listing both shortfalls, and nothing is created: not the network, not /home, not the
// cluster (before, the apply created them and only the partition's create found the quota short).
// Two partitions that fit one by one but not together fail the same way, the error naming both.
func TestAccNodePartition_planPreflightQuota(t *testing.T) {
	env := acctest.New(t)
	env.SetQuota(acctest.Region, "NVIDIA_H100_GPUS", 16)
	env.SetQuota(acctest.Region, "CPUS", 500)
	noCreate := func() {
		t.Helper()
		checkNoMutations(t, env)
		if env.CallCount("compute.regions.get") == 0 {
			t.Error("the plan did not read the region's quotas")
		}
		env.ResetCalls()
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				PreConfig: env.ResetCalls,
				Config:    env.Config(blueprint(gpuPartition("test", "h100", 3))),
				ExpectError: acctest.ErrorMatching(`(?s)The partition does not fit.*static_node_count = 3.*Found at plan, before anything is created:.*` +
					`regional quota in us-central1 does not cover 3 more a3-highgpu-8g static nodes: ` +
					`CPUS needs 624, 500 available \(limit 500, in use 0\); NVIDIA_H100_GPUS needs 24, 16 available \(limit 16, in use 0\)`),
			},
			{
				PreConfig: noCreate,
				Config:    env.Config(blueprint(gpuPartition("test", "h100", 2), gpuPartition("more", "more", 1))),
				ExpectError: acctest.ErrorMatching(`(?s)NVIDIA_H100_GPUS needs 24 with the other resources planned with it \(` +
					`(8 for partition more, 16 for partition h100|16 for partition h100, 8 for partition more)\), 16 available`),
			},
			{
				PreConfig:          noCreate,
				Config:             env.Config(blueprint(gpuPartition("test", "h100", 2))),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
	checkNoMutations(t, env)
}
