package recipejob_test

import (
	"fmt"

	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// On a Filestore /home the checkpoint cost comes from the tier's published write throughput at
// the instance's capacity: 104.7 GiB of Llama 3.1 8B at Zonal's 88 MiBps per TiB × 1 TiB
// (92.3 MB/s) is C = 1218.3 s, so an interval of a second — or of 20 minutes — is refused at
// plan, with no mutating call, and 21 minutes plans.
func TestAccRecipeJob_filestoreCheckpointCost(t *testing.T) {
	env := acctest.New(t)
	c := acctest.APIClusterSpec("rjf")
	c.Mounts.Home.Tier, c.Mounts.Home.CapacityGiB = "ZONAL", 1024
	cluster := env.APICluster(t, c, []cc.Partition{{Name: "a3h", MachineType: "a3-highgpu-8g", StaticNodes: 2}})
	env.ResetCalls()
	job := func(interval string) string {
		return env.Config(recipeConfig(cluster, "train", "a3h", gpuModel, gpuSize, "pretrain",
			`  checkpoint = { directory = "/home/ckpt/llama8b", interval = "`+interval+`" }`))
	}
	const refused = `checkpoint\.interval: %s is shorter than the checkpoint cost C = 1218\.3 s[\s\S]*Filestore /home \(ZONAL, 1024 GiB\)`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: job("1s"), PlanOnly: true, ExpectError: acctest.ErrorMatching(fmt.Sprintf(refused, "1s"))},
			{Config: job("20m"), PlanOnly: true, ExpectError: acctest.ErrorMatching(fmt.Sprintf(refused, "20m"))},
			{Config: job("21m"), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
	if calls := env.Calls(); calls.Mutating != 0 {
		t.Fatalf("plans made %d mutating calls: %v", calls.Mutating, calls.Methods)
	}
}
