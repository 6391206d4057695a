package recipejob_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/recipejob"
)

// overrides.hyperparameters = {}, overrides.env = {} and recipe.custom.environment = {}, and all
// unset, plan nothing after apply, refresh and import (issue 19) — a change there would replace
// the job. The body is a custom program, the one recipe whose object holds every collection (the
// catalog recipes' overrides are the same attributes, read back by the same code).
func TestAccRecipeJob_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjcol", false)
	startFakeJobs(t, env, "rjcol")
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: recipejob.NewResource,
		Body: map[string]any{
			"cluster": cluster, "name": "train", "partition": "cpu",
			"recipe":     map[string]any{"custom": map[string]any{"command": "python3 /home/team/train.py"}},
			"overrides":  map[string]any{"max_steps": 40},
			"checkpoint": map[string]any{"interval": "30s"},
		},
	})
}
