package healthpolicy_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func policyConfig(cluster, body string) string {
	return fmt.Sprintf(`
resource "hypercompute_health_policy" "test" {
  cluster = %q
  name    = "default"
%s
}
`, cluster, body)
}

const gpuChecks = `
  partitions = ["a3"]
  escalation = ["reboot", "replace"]
  limits     = { max_concurrent_repairs = 2, max_unavailable_percent = 25 }
  spare_node_count = 2
  checks = [
    { name = "ecc", schedules = ["prolog", "periodic"], action = "replace", max_uncorrected_ecc = 1 },
    { name = "dcgm", schedules = ["boot"], dcgm_level = 3, action = "reboot" },
    { name = "disk", paths = ["/", "/tmp"], min_free_gb = 10 },
  ]
`

// The policy's lifecycle against the API, with a fake controller agent: create writes the key
// and waits for the controller's report; import reads the policy back; an update rewrites the
// key in place and waits for the new generation; destroy removes the key and waits for the
// controller to drop it.
func TestAccHealthPolicy_lifecycle(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hp")
	startFakeController(t, env, "hp")
	var firstGen string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckControllerKeyGone("hp", cc.HealthPolicyKey("default")),
		Steps: []resource.TestStep{
			{
				Config: env.Config(policyConfig(cluster, gpuChecks)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", cluster+"/healthPolicies/default"),
					resource.TestCheckResourceAttrSet(addr, "generation"),
					func(s *terraform.State) error {
						firstGen = s.RootModule().Resources[addr].Primary.Attributes["generation"]
						p, ok := controllerPolicy(env, "hp", "default")
						if !ok {
							return fmt.Errorf("no policy key on the controller")
						}
						if p.Generation != firstGen || !slices.Equal(p.Partitions, []string{"a3"}) || len(p.Checks) != 3 ||
							p.Checks[1].DCGMLevel != 3 || p.Checks[0].Action != cc.ActionReplace || !p.RequeueJobs || p.Limits.MaxConcurrentRepairs != 2 || p.SpareNodes != 2 {
							return fmt.Errorf("the controller holds %+v", p)
						}
						return nil
					},
				),
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "requeue_jobs"}},
			{
				Config: env.Config(policyConfig(cluster, `
  interval_seconds = 30
  checks = [{ name = "mounts", paths = ["/home", "/lustre"], timeout_seconds = 5, action = "reboot" }]
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: func(s *terraform.State) error {
					gen := s.RootModule().Resources[addr].Primary.Attributes["generation"]
					p, _ := controllerPolicy(env, "hp", "default")
					if gen == firstGen || p.Generation != gen || p.IntervalSeconds != 30 || len(p.Checks) != 1 || p.Checks[0].Name != cc.CheckMounts || len(p.Partitions) != 0 {
						return fmt.Errorf("generation %s (was %s); the controller holds %+v", gen, firstGen, p)
					}
					return nil
				},
			},
		},
	})
}

// A policy whose key was deleted outside Terraform shows as gone and the next apply writes it again.
func TestAccHealthPolicy_disappears(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hpd")
	startFakeController(t, env, "hpd")
	cfg := env.Config(policyConfig(cluster, `  checks = [{ name = "slurmd" }]`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config:             cfg,
				Check:              env.RemoveControllerKey("hpd", cc.HealthPolicyKey("default")),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					if _, ok := controllerPolicy(env, "hpd", "default"); !ok {
						return fmt.Errorf("the policy was not written again")
					}
					return nil
				},
			},
		},
	})
}

// A controller that never applies the policy fails the apply with what it waited for.
func TestAccHealthPolicy_notApplied(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hpn")
	f := startFakeController(t, env, "hpn")
	f.pause(true)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:      env.Config(policyConfig(cluster, `  checks = [{ name = "munge" }]`+"\n  timeouts = { create = \"2s\" }")),
			ExpectError: acctest.ErrorMatching(`timed out waiting for the controller hpn-controller to apply generation \w+ of health policy default; no report of this policy yet`),
		}},
	})
	f.pause(false)
}
