package nodepartition_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// slurm.features = [] and slurm.extra = {} (what modules/gpu-partition passes by default), labels
// = {}, and all of them unset plan nothing after apply, refresh and import (issue 19).
func TestAccNodePartition_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hccol", clusterOpts{})
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: nodepartition.NewResource,
		Body: map[string]any{
			"cluster": tc.id, "name": "cpu", "machine_type": "n2-standard-4",
			"max_dynamic_node_count": 2,
			// A set slurm object, so its collections are injected; exclusive keeps it non-default,
			// which an import needs to read the object back.
			"slurm": map[string]any{"exclusive": true},
		},
	})
}
