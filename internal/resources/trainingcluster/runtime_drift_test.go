package trainingcluster_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// slurm.conf edited on the controller by hand (and taken by slurmctld with a reconfigure) is
// drift the controller's agent reports: the next plan shows an update (`terraform plan
// -detailed-exitcode` would exit 2), and the apply has the agent write the declared file back
// and reconfigure, so slurmctld runs the declared MaxJobCount again and the plan is empty.
func TestAccTrainingCluster_localRuntimeDrift(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	const ctl = "hcz-controller"
	key := instances.InstanceKey(acctest.Project, acctest.Zone, ctl)
	exec := func(cmd string) (string, error) { return env.Slurm(30*time.Second, ctl, cmd) }
	maxJobCount := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			out, err := exec("scontrol show config")
			if err != nil {
				return err
			}
			m := regexp.MustCompile(`(?m)^MaxJobCount\s*=\s*(\S+)`).FindStringSubmatch(out)
			if m == nil || m[1] != want {
				return fmt.Errorf("slurmctld runs with MaxJobCount %v, want %s", m, want)
			}
			return nil
		}
	}
	driftReport := func() string {
		return env.Emulator.Server().Component("instances").(*instances.Service).GuestAttributes(key).Values[clusterconfig.GuestAttributeNamespace][clusterconfig.GuestAttrConfigDrift]
	}
	editByHand := func() {
		if _, err := exec(`sed -i 's/^MaxJobCount=10000$/MaxJobCount=12345/' /etc/slurm/slurm.conf && grep -q '^MaxJobCount=12345$' /etc/slurm/slurm.conf && scontrol reconfigure`); err != nil {
			t.Fatal(err)
		}
		if err := maxJobCount("12345")(nil); err != nil {
			t.Fatal(err)
		}
		// The agent looks at its files on every pass (at least every 30 s).
		deadline := time.Now().Add(2 * time.Minute)
		for !strings.Contains(driftReport(), "/etc/slurm/slurm.conf") {
			if time.Now().After(deadline) {
				t.Fatalf("the controller did not report the edited slurm.conf as drift; config-drift = %q", driftReport())
			}
			time.Sleep(time.Second)
		}
	}
	cfg := env.Config(storageConfig("hc-tcz") + clusterConfig("hcz", "file://"+agentPath, agentSHA, `  login = { count = 0 }
  slurm = { extra = { MaxJobCount = "10000" } }
  deletion_protection = false
  timeouts = { create = "5m", update = "3m" }
`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{Config: cfg, Check: maxJobCount("10000")},
			{
				PreConfig:          editByHand,
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(maxJobCount("10000"), func(*terraform.State) error {
					if out, err := exec("grep -c '^MaxJobCount=10000$' /etc/slurm/slurm.conf"); err != nil || strings.TrimSpace(out) != "1" {
						return fmt.Errorf("slurm.conf was not restored: %q %v", out, err)
					}
					if d := driftReport(); d != "" {
						return fmt.Errorf("config-drift still reported after the apply: %q", d)
					}
					return nil
				}),
			},
		},
	})
}
