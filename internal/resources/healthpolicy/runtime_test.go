package healthpolicy_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// runtimeConfig is a real cluster on the local runtime — network, Filestore /home, the controller
// with the agent built from this tree, a CPU partition of two static nodes — under a health policy
// whose disk check reboots a node whose /tmp runs full, and the cluster's health records.
func runtimeConfig(agentPath, agentSHA string, withData bool) string {
	cfg := acctest.RuntimeClusterConfig("hhp", agentPath, agentSHA) + acctest.RuntimeCPUPartitionConfig + `
resource "hypercompute_health_policy" "test" {
  cluster          = hypercompute_training_cluster.c.id
  name             = "default"
  partitions       = [hypercompute_node_partition.cpu.name]
  interval_seconds = 2
  checks = [
    { name = "disk", paths = ["/tmp"], min_free_gb = 0.05, schedules = ["boot", "periodic"], action = "reboot" },
    { name = "munge", schedules = ["periodic"] },
  ]
  timeouts = { create = "3m", delete = "2m" }
}
`
	if withData {
		cfg += `
data "hypercompute_cluster_health" "c" {
  cluster    = hypercompute_training_cluster.c.id
  depends_on = [hypercompute_health_policy.test]
}
`
	}
	return cfg
}

// The resource through Terraform on the local runtime: apply ends when the real controller agent
// applied the policy; a node whose disk check fails drains itself with the check's reason and is
// rebooted through the emulator's Compute API until it is back in service, which the data source
// shows; destroy ends when the controller dropped the policy.
func TestAccHealthPolicy_localRuntime(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	exec := func(vm string, argv ...string) (string, error) {
		out, err := env.RunOn(30*time.Second, vm, argv...)
		return strings.TrimSpace(out), err
	}
	state := func(node string) string {
		s, _ := env.Slurm(30*time.Second, "hhp-controller", "sinfo -h -N -n "+node+" -o '%T|%E'")
		return strings.TrimSpace(s)
	}
	waitState := func(node, what string, timeout time.Duration, ok func(string) bool) error {
		deadline := time.Now().Add(timeout)
		for {
			s := state(node)
			if ok(s) {
				return nil
			}
			if time.Now().After(deadline) {
				log, _ := exec("hhp-controller", "tail", "-n", "20", "/var/log/hypercompute/agent.log")
				return fmt.Errorf("waiting for %s: %s is %q\n%s", what, node, s, log)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	const node = "hhp-cpu-0"
	const ds = "data.hypercompute_cluster_health.c"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA, false)),
				Check: func(*terraform.State) error {
					conf, err := exec("hhp-controller", "cat", "/etc/slurm/slurm.conf")
					if err != nil {
						return err
					}
					if !strings.Contains(conf, "HealthCheckInterval=2\n") {
						return fmt.Errorf("the applied slurm.conf has no 2 s health check:\n%s", conf)
					}
					if _, err := exec(node, "mount", "-t", "tmpfs", "-o", "size=1m", "hcfault", "/tmp"); err != nil {
						return err
					}
					if err := waitState(node, "the disk check's drain", 30*time.Second, func(s string) bool {
						return strings.HasPrefix(s, "drain") && strings.Contains(s, "hc:disk: /tmp has")
					}); err != nil {
						return err
					}
					if err := waitState(node, "the reboot", 2*time.Minute, func(s string) bool { return s == "idle|none" }); err != nil {
						return err
					}
					// The controller's records follow Slurm at its next pass (every 3 s while a policy applies).
					svc := env.Server.Component("instances").(*instances.Service)
					key := instances.InstanceKey(acctest.Project, acctest.Zone, "hhp-controller")
					deadline := time.Now().Add(30 * time.Second)
					for !strings.Contains(svc.GuestAttributes(key).Values[cc.GuestAttributeNamespace][cc.HealthNodeAttr(node)], `"state":"idle"`) {
						if time.Now().After(deadline) {
							return fmt.Errorf("the controller's record of %s never showed it idle", node)
						}
						time.Sleep(200 * time.Millisecond)
					}
					return nil
				},
			},
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA, true)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrPair(ds, "policies.default", "hypercompute_health_policy.test", "generation"),
					resource.TestCheckResourceAttr(ds, "nodes.#", "2"),
					resource.TestCheckResourceAttr(ds, "nodes.0.name", node),
					resource.TestCheckResourceAttr(ds, "nodes.0.state", "idle"),
					resource.TestCheckResourceAttr(ds, "nodes.0.repairs", "1"),
					resource.TestMatchResourceAttr(ds, "nodes.0.last_failure", regexpOf(`^hc:disk: /tmp has`)),
					resource.TestCheckResourceAttrSet(ds, "nodes.0.in_service_since"),
					resource.TestCheckResourceAttr(ds, "repairs_in_progress.#", "0"),
					resource.TestCheckResourceAttr(ds, "repairs_done.0.node", node),
					resource.TestCheckResourceAttr(ds, "repairs_done.0.action", cc.ActionReboot),
					resource.TestCheckResourceAttr(ds, "repairs_done.0.result", "ok"),
				),
			},
		},
	})
}
