package recipejob_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A job names a Slurm partition, which may be several node sets: a job on "cpu" may use the nodes
// of both node sets that form it; a node set that joined another partition is no Slurm partition
// (Slurm would refuse the job), and a partition of several machine types cannot give a recipe one
// profile. All refused at plan with read calls only.
func TestAccRecipeJob_nodeSetPartitions(t *testing.T) {
	env := acctest.New(t)
	cluster := env.APICluster(t, acctest.APIClusterSpec("rjn"), []cc.Partition{
		{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2, Provisioning: cc.ProvisioningStandard},
		{Name: "cpu-spot", SlurmPartition: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 2, Provisioning: cc.ProvisioningSpot},
		{Name: "mix", MachineType: "n2-standard-4", StaticNodes: 1},
		{Name: "mix-c3", SlurmPartition: "mix", MachineType: "c3-standard-22", StaticNodes: 1},
	})
	env.ResetCalls()
	cfg := func(partition, extra string) string {
		return env.Config(recipeConfig(cluster, "train", partition, "tiny-gpt", "2m", "pretrain", "  checkpoint = { interval = \"1m\" }\n"+extra))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps:                    []resource.TestStep{{Config: cfg("cpu", "  nodes = 4"), PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
	for _, tc := range []struct{ name, body, want string }{
		{"more nodes than the node sets hold", cfg("cpu", "  nodes = 5"), `nodes: the job needs 5 nodes, but partition cpu holds at most 4 \(2 static, 2 dynamic\)`},
		{"a node set of another partition", cfg("cpu-spot", ""), `partition: cpu-spot is a node set of Slurm partition cpu, and jobs are submitted to Slurm partitions: set partition = "cpu"`},
		{"a partition of two machine types", cfg("mix", ""), `partition: Slurm partition mix mixes machine types \(n2-standard-4 in node set mix, c3-standard-22 in node set mix-c3\)`},
	} {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoMutations(t, "plans of jobs on node sets")
}
