package recipejob_test

import (
	"fmt"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// ownership is the job under the ownership tests every controller-key resource shares
// (acctest.KeyOwnership), on an API cluster of its own with a fake controller agent.
func ownership(t *testing.T, cluster string) (acctest.KeyOwnership, *acctest.Env) {
	env := acctest.New(t)
	id := apiCluster(t, env, cluster, false)
	startFakeJobs(t, env, cluster)
	return acctest.KeyOwnership{
		Factories: factories,
		Type:      "hypercompute_recipe_job", Cluster: cluster, ClusterID: id,
		Name: "train", Key: cc.JobKey("train"), ImportID: id + "/jobs/train",
		Resource: func(label, name string) string {
			return fmt.Sprintf(`
resource "hypercompute_recipe_job" %q {
  cluster   = %q
  name      = %s
  partition = "cpu"
  recipe    = { model = "tiny-gpt", size = "2m", mode = "pretrain" }
  checkpoint = { interval = "30s" }
  wait_for  = "submitted"
}
`, label, id, name)
		},
		CheckDestroy: env.CheckControllerKeyGone(cluster, cc.JobKey("train")),
	}, env
}

// A second state's create of the same job is refused with the import hint and changes nothing.
func TestAccRecipeJob_otherState(t *testing.T) {
	o, env := ownership(t, "rjo")
	o.TestOtherState(t, env)
}

// Two jobs with one name on one cluster fail at plan, or at apply when the name is known only then.
func TestAccRecipeJob_duplicateName(t *testing.T) {
	o, env := ownership(t, "rjdup")
	o.TestDuplicateAtPlan(t, env)
	o.TestDuplicateAtApply(t, env)
}

// A create interrupted after it wrote its key is finished by a plain re-apply.
func TestAccRecipeJob_interruptedCreate(t *testing.T) {
	o, env := ownership(t, "rji")
	o.TestInterrupted(t, env)
}
