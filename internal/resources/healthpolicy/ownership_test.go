package healthpolicy_test

import (
	"fmt"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// ownership is the policy under the ownership tests every controller-key resource shares
// (acctest.KeyOwnership), on an API cluster of its own with a fake controller agent.
func ownership(t *testing.T, cluster string) (acctest.KeyOwnership, *acctest.Env) {
	env := acctest.New(t)
	id := apiCluster(t, env, cluster)
	startFakeController(t, env, cluster)
	return acctest.KeyOwnership{
		Factories: factories,
		Type:      "hypercompute_health_policy", Cluster: cluster, ClusterID: id,
		Name: "default", Key: cc.HealthPolicyKey("default"), ImportID: id + "/healthPolicies/default",
		Resource: func(label, name string) string {
			return fmt.Sprintf(`
resource "hypercompute_health_policy" %q {
  cluster = %q
  name    = %s
  checks  = [{ name = "slurmd" }]
}
`, label, id, name)
		},
		CheckDestroy: env.CheckControllerKeyGone(cluster, cc.HealthPolicyKey("default")),
	}, env
}

// A second state's create of the same policy is refused with the import hint and changes nothing.
func TestAccHealthPolicy_otherState(t *testing.T) {
	o, env := ownership(t, "hpo")
	o.TestOtherState(t, env)
}

// Two policies with one name on one cluster fail at plan, or at apply when the name is known only then.
func TestAccHealthPolicy_duplicateName(t *testing.T) {
	o, env := ownership(t, "hpdup")
	o.TestDuplicateAtPlan(t, env)
	o.TestDuplicateAtApply(t, env)
}

// A create interrupted after it wrote its key is finished by a plain re-apply.
func TestAccHealthPolicy_interruptedCreate(t *testing.T) {
	o, env := ownership(t, "hpi")
	o.TestInterrupted(t, env)
}
