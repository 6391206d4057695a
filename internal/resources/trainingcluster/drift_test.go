package trainingcluster_test

import (
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/trainingcluster"
)

// withPartitions serve the cluster together with node partitions.
var withPartitions = acctest.FactoriesWith(trainingcluster.NewResource, filestore.NewResource, lustre.NewResource, nodepartition.NewResource)

// partitionAndOutputs is a dynamic partition of the test cluster and the outputs a blueprint
// gives, which a pipeline gating on `terraform plan -detailed-exitcode` sees.
const partitionAndOutputs = `
resource "hypercompute_node_partition" "cpu" {
  cluster                = hypercompute_training_cluster.test.id
  name                   = "cpu"
  machine_type           = "n2-standard-4"
  max_dynamic_node_count = 2
}

output "config_hash" {
  value = hypercompute_training_cluster.test.config_hash
}

output "node_config_hash" {
  value = hypercompute_training_cluster.test.node_config_hash
}
`

// A partition added after the cluster changes what the controller runs, not what the cluster
// declares: right after the apply the plan is empty, outputs included (the test harness's own
// post-apply plan fails on any change, like `terraform plan -detailed-exitcode` exiting 2).
func TestAccTrainingCluster_noChangeAfterPartitions(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cfg := env.Config(storageConfig("hc-tcn") + clusterConfig("hcn", "file:///opt/hypercompute-agent", fakeSHA, unprotected) + partitionAndOutputs)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: withPartitions,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("config_drift"), knownvalue.ListSizeExact(0)),
				},
				Check: checkHash(env, fake, "hcn"),
			},
			{
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
}

// Files changed on the controller out of band, as its agent reports them, are drift: the plan
// shows an update naming them, and the apply has the agent put them back (a raised Rewrite
// generation), after which the plan is empty again.
func TestAccTrainingCluster_drift(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cfg := env.Config(storageConfig("hc-tcf") + clusterConfig("hcf", "file:///opt/hypercompute-agent", fakeSHA, unprotected))
	generation := func(want int) resource.TestCheckFunc {
		return checkVM(env, "hcf-controller", func(inst *computepb.Instance) error {
			c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
			if err != nil || c.Rewrite != want {
				return fmt.Errorf("rewrite generation %d (%v), want %d", c.Rewrite, err, want)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(generation(0), func(*terraform.State) error {
					return fake.Drift("hcf", "/etc/slurm/slurm.conf")
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("config_drift"), knownvalue.ListSizeExact(0)),
				}},
				Check: generation(1),
			},
		},
	})
}

// node_config_hash follows what nodes boot with: a Slurm setting leaves it (and every partition
// given it) alone; a new agent build makes it unknown in the plan and new after the apply.
func TestAccTrainingCluster_nodeConfigHash(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := func(sha, maxJobs string) string {
		return env.Config(storageConfig("hc-tch") + clusterConfig("hch", "file:///opt/hypercompute-agent", sha,
			unprotected+fmt.Sprintf("  slurm = { extra = { MaxJobCount = %q } }\n", maxJobs)))
	}
	same := statecheck.CompareValue(compare.ValuesSame())
	differ := statecheck.CompareValue(compare.ValuesDiffer())
	path := tfjsonpath.New("node_config_hash")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{Config: cfg(fakeSHA, "1000"), ConfigStateChecks: []statecheck.StateCheck{same.AddStateValue(addr, path), differ.AddStateValue(addr, path)}},
			{
				Config: cfg(fakeSHA, "2000"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("config_hash")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{same.AddStateValue(addr, path)},
			},
			{
				Config: cfg(strings.Repeat("cd", 32), "2000"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, path),
				}},
				ConfigStateChecks: []statecheck.StateCheck{differ.AddStateValue(addr, path)},
			},
		},
	})
}
