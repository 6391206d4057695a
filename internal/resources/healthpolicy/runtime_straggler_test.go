package healthpolicy_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// stragglerConfig: two n2-standard-2 nodes under a straggler check (a node above twice the median
// compute time per step is drained), and the CPU recipe training on both, each rank recording its
// step timing every 2 steps.
func stragglerConfig(agentPath, agentSHA string) string {
	return acctest.RuntimeClusterConfig("hhs", agentPath, agentSHA) + acctest.RuntimeCPUPartitionConfig + `

resource "hypercompute_health_policy" "s" {
  cluster          = hypercompute_training_cluster.c.id
  name             = "straggler"
  partitions       = [hypercompute_node_partition.cpu.name]
  interval_seconds = 5
  checks           = [{ name = "straggler", straggler_factor = 2, action = "drain" }]
  timeouts         = { create = "3m", delete = "2m" }
}
` + acctest.RuntimeTinyGPTJob("train", "cpu", `  overrides  = { max_steps = 100000, hyperparameters = { log_every = "2" } }
  checkpoint = { interval = "30s" }
  wait_for   = "running"
  depends_on = [hypercompute_health_policy.s]
`)
}

// The straggler check on the local runtime with the real trainer: one node of a running recipe
// job is throttled to a tenth of a CPU (its VM's CPU cgroup quota); its ranks' compute time per
// step rises far above the other node's, the controller drains it with the straggler reason and
// the times, and the healthy node stays in service.
func TestAccHealthPolicy_stragglerOnTheLocalRuntime(t *testing.T) {
	acctest.RequireTorch(t)
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	run := func(vm string, argv ...string) (string, error) {
		out, err := env.RunOn(30*time.Second, vm, argv...)
		return strings.TrimSpace(out), err
	}
	state := func(n string) string {
		s, _ := env.Slurm(30*time.Second, "hhs-controller", "sinfo -h -N -n "+n+" -o '%T|%E'")
		return strings.TrimSpace(s)
	}
	const slow, fast = "hhs-cpu-1", "hhs-cpu-0"
	const quota = "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"
	t.Cleanup(func() { run(slow, "sh", "-c", "echo -1 > "+quota) })
	check := func(*terraform.State) error {
		// Both ranks have recorded a timing before the fault.
		deadline := time.Now().Add(3 * time.Minute)
		for {
			out, _ := run("hhs-controller", "sh", "-c", "cat /home/.hypercompute/jobs/train/ranks/*.json")
			if strings.Count(out, `"compute_seconds"`) == 2 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the ranks recorded no step timing: %q", out)
			}
			time.Sleep(time.Second)
		}
		if s := state(slow); strings.HasPrefix(s, "drain") {
			return fmt.Errorf("%s drained before it was slowed: %s", slow, s)
		}
		if _, err := run(slow, "sh", "-c", "echo 10000 > "+quota); err != nil {
			return err
		}
		deadline = time.Now().Add(4 * time.Minute)
		for {
			s := state(slow)
			if strings.HasPrefix(s, "drain") {
				if !strings.Contains(s, "hc:straggler: job train: ") || !strings.Contains(s, "the median") {
					return fmt.Errorf("%s drained with %q, not the straggler check's evidence", slow, s)
				}
				break
			}
			if time.Now().After(deadline) {
				log, _ := run("hhs-controller", "sh", "-c", "cat /home/.hypercompute/jobs/train/ranks/*.json; tail -n 10 /var/log/hypercompute/agent.log")
				return fmt.Errorf("the slowed %s was never drained (%q)\n%s", slow, s, log)
			}
			time.Sleep(time.Second)
		}
		if s := state(fast); strings.HasPrefix(s, "drain") {
			return fmt.Errorf("the healthy %s was drained too: %s", fast, s)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    []resource.TestStep{{Config: env.Config(stragglerConfig(agentPath, agentSHA)), Check: check}},
	})
}
