package recipejob_test

import (
	"fmt"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/recipejob"
)

// factories serves the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(recipejob.NewResource)

const addr = "hypercompute_recipe_job.test"

// apiCluster is a training cluster made through the API (acctest.APICluster) with the partition
// keys (cpu: 2 static n2-standard-4 nodes; l4 and a3h: 2 static g2-standard-24 and
// a3-highgpu-8g nodes; a3m: 2 static a3-megagpu-8g nodes), /home, a bucket mounted at /gcs/ckpt
// and, with lustre, Managed Lustre at /lustre.
func apiCluster(t *testing.T, env *acctest.Env, name string, lustre bool) string {
	t.Helper()
	c := acctest.APIClusterSpec(name)
	// A checkpointing bucket: the storage with a write bandwidth figure in the catalog, so a job
	// checkpointing there gets its checkpoint cost estimated at plan.
	c.Mounts.Buckets = []cc.BucketMount{{Bucket: name + "-ckpt", MountPoint: "/gcs/ckpt", Profile: cc.BucketProfileCheckpointing}}
	if lustre {
		// 18,000 GiB at 500 MBps/TiB: 8,789 MB/s of checkpoint bandwidth.
		c.Mounts.Lustre = &cc.LustreMount{Address: "10.0.9.3", FSName: "lfs", CapacityGiB: 18000, Throughput: 500}
	}
	return env.APICluster(t, c, []cc.Partition{
		{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2},
		{Name: "l4", MachineType: "g2-standard-24", StaticNodes: 2},
		{Name: "a3h", MachineType: "a3-highgpu-8g", StaticNodes: 2},
		{Name: "a3m", MachineType: "a3-megagpu-8g", StaticNodes: 2},
	})
}

// startFakeJobs reports the cluster's jobs as its controller's agent would (acctest.FakeJobs).
func startFakeJobs(t *testing.T, env *acctest.Env, cluster string) *acctest.FakeJobs {
	t.Helper()
	return acctest.StartFakeJobs(t, env, cluster)
}

func jobConfig(cluster, name, partition, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_recipe_job" "test" {
  cluster   = %q
  name      = %q
  partition = %q
  recipe = {
    model = "tiny-gpt"
    size  = "2m"
    mode  = "pretrain"
  }
%s
}
`, cluster, name, partition, extra)
}
