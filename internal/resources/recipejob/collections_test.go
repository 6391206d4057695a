package recipejob_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/recipejob"
)

// overrides.hyperparameters = {} and overrides.env = {}, and both unset, plan nothing after
// apply, refresh and import (issue 19) — a change there would replace the job.
func TestAccRecipeJob_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjcol", false)
	startFakeJobs(t, env, "rjcol")
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: recipejob.NewResource,
		Body: map[string]any{
			"cluster": cluster, "name": "train", "partition": "cpu",
			"recipe":     map[string]any{"model": "tiny-gpt", "size": "2m", "mode": "pretrain"},
			"overrides":  map[string]any{"max_steps": 40},
			"checkpoint": map[string]any{"interval": "30s"},
		},
	})
}
