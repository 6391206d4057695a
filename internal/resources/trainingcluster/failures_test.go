package trainingcluster_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// slurmctld's words for a value it refuses (what Debian's slurmctld prints for a bad MaxJobCount).
const rejectText = `slurmctld: error: MaxJobCount=0 is invalid, must be at least 1`

func TestAccTrainingCluster_configRejected(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	fake.Reject(func(c clusterconfig.Cluster, _ []clusterconfig.Partition) string {
		if c.Slurm.Extra["MaxJobCount"] == "0" {
			return rejectText
		}
		return ""
	})
	cluster := func(maxJobs string) string {
		return env.Config(storageConfig("hc-tcr") + clusterConfig("hcr", "file:///opt/hypercompute-agent", fakeSHA,
			unprotected+fmt.Sprintf("  slurm = { extra = { MaxJobCount = %q } }\n", maxJobs)))
	}
	var goodHash string
	keepsGoodConfig := resource.ComposeAggregateTestCheckFunc(
		func(*terraform.State) error {
			if got := fake.ControllerHash("hcr"); got != goodHash {
				return fmt.Errorf("controller reports config-hash %s, want the previous %s", got, goodHash)
			}
			return nil
		},
		checkVM(env, "hcr-controller", func(inst *computepb.Instance) error {
			c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
			if err != nil || c.Slurm.Extra["MaxJobCount"] != "5000" {
				return fmt.Errorf("the controller's metadata holds %v (%v); the rejected configuration must be rolled back", c.Slurm.Extra, err)
			}
			return nil
		}),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cluster("5000"),
				Check: func(s *terraform.State) error {
					goodHash = s.RootModule().Resources[addr].Primary.Attributes["config_hash"]
					return nil
				},
			},
			{
				// Plan validation accepts the setting; slurmctld does not. The apply fails with its words.
				Config:      cluster("0"),
				ExpectError: acctest.ErrorMatching(`rejected the new Slurm configuration .* keeps running the previous one; slurmctld said: ` + rejectText),
			},
			{
				// The state recorded what runs, so the plan still wants the change.
				Config:             cluster("0"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cluster("5000"),
				Check:  keepsGoodConfig,
			},
		},
	})
}

func TestAccTrainingCluster_bootstrapError(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	const mountErr = "mount.nfs: access denied by server while mounting 10.0.0.9:/home"
	fake.FailVM("hce-controller", mountErr)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		// Nothing orphaned: what the failed create made is in the state (tainted) and destroyed.
		CheckDestroy: checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config:      env.Config(storageConfig("hc-tce") + clusterConfig("hce", "file:///opt/hypercompute-agent", fakeSHA, "")),
				ExpectError: acctest.ErrorMatching(`VM hce-controller failed to bootstrap \(phase error\): ` + mountErr),
			},
			{
				// The VMs the failed create made are in the state, tainted, and hold nothing to
				// protect: the next plan replaces them.
				Config:             env.Config(storageConfig("hc-tce") + clusterConfig("hce", "file:///opt/hypercompute-agent", fakeSHA, "")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("controller").AtMapKey("name"), knownvalue.StringExact("hce-controller")),
					vmsExist{env, []string{"hce-controller", "hce-login-0"}},
				}},
			},
		},
	})
}

// Without any report the wait ends at the create timeout and says what it waited for.
func TestAccTrainingCluster_timeout(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{{
			Config: env.Config(storageConfig("hc-tct") + clusterConfig("hct", "file:///opt/hypercompute-agent", fakeSHA, `  login = { count = 0 }
  timeouts = { create = "3s" }
`)),
			ExpectError: acctest.ErrorMatching(`timed out after \d+s waiting for VM hct-controller to report phase=ready with config-hash [0-9a-f]{12}; last seen: nothing reported yet`),
		}},
	})
}

// vmsExist is a plan check that asserts which VMs exist while a step only plans.
type vmsExist struct {
	env  *acctest.Env
	want []string
}

func (c vmsExist) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = checkVMs(c.env, c.want...)(nil)
}

// Storage the cluster's VMs could not reach is refused before any VM is created.
func TestAccTrainingCluster_storageOnAnotherNetwork(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{{
			Config: env.Config(storageConfig("hc-tcn") + `
resource "hypercompute_network" "other" {
  name   = "hc-tcn-other"
  subnet = { cidr = "10.8.0.0/20" }
  private_service_access = { enabled = false }
  enable_nat = false
}
` + strings.Replace(clusterConfig("hcn", "file:///opt/hypercompute-agent", fakeSHA, ""), "hypercompute_network.net.name", "hypercompute_network.other.name", 1)),
			ExpectError: acctest.ErrorMatching(`home\.filestore: Filestore instance projects/hc-acc-test/locations/us-central1-a/instances/hc-tcn-home is attached to network projects/hc-acc-test/global/networks/hc-tcn, but the cluster's VMs are in projects/hc-acc-test/global/networks/hc-tcn-other`),
			Check: func(*terraform.State) error {
				if n := env.CallCount("compute.instances.insert"); n != 0 {
					return fmt.Errorf("%d VMs were created", n)
				}
				return nil
			},
		}},
	})
	if n := env.CallCount("compute.instances.insert"); n != 0 {
		t.Fatalf("%d VMs were created for a cluster whose /home it cannot reach", n)
	}
}
