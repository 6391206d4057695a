package healthpolicy_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The GPU memory repair checks measured on a real H200 through terraform: a policy declaring
// remapped_rows and unrepairable_memory (and nvlink, which reports "no links" on a GPU without
// NVLink peers) is planned and applied, and the controller holds it with the per-outcome default
// actions: a pending remap takes a reboot, unrepairable memory a replace.
func TestAccHealthPolicy_memoryRepairChecks(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hm")
	startFakeController(t, env, "hm")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: env.Config(policyConfig(cluster, `
  checks = [
    { name = "remapped_rows", schedules = ["prolog", "periodic"] },
    { name = "unrepairable_memory", schedules = ["boot", "periodic"] },
    { name = "nvlink" },
  ]
`)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "checks.0.name", cc.CheckRemappedRows),
				resource.TestCheckNoResourceAttr(addr, "checks.0.action"),
				func(*terraform.State) error {
					p, ok := controllerPolicy(env, "hm", "default")
					if !ok {
						return fmt.Errorf("no policy key on the controller")
					}
					d := p.WithDefaults()
					if len(d.Checks) != 3 || d.Checks[0].Action != cc.ActionReboot || d.Checks[1].Action != cc.ActionReplace || d.Checks[2].Action != cc.ActionDrain {
						return fmt.Errorf("the controller resolves %+v", d.Checks)
					}
					return nil
				},
			),
		}},
	})
}
