package healthpolicy_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/healthpolicy"
)

// partitions = [], escalation = [] and each check's schedules, xids and paths = [], and all of them
// unset, plan nothing after apply, refresh and import (issue 19).
func TestAccHealthPolicy_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hpcol")
	startFakeController(t, env, "hpcol")
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: healthpolicy.NewResource,
		Body: map[string]any{
			"cluster": cluster, "name": "default",
			// Set: an import reads the controller's true back into this Optional-only bool, which
			// an unset one would plan away (not a collection matter).
			"requeue_jobs": true,
			// Checks whose elements get the nested collections injected.
			"checks": []any{map[string]any{"name": "disk", "min_free_gb": 1}, map[string]any{"name": "gpu", "expected_gpus": 8}},
		},
	})
}
