package lustre_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/lustre"
)

// labels = {} and unset labels plan nothing after apply, refresh and import (issue 19).
func TestAccLustre_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: lustre.NewResource,
		Prelude: networkConfig("hc-lcol", ""),
		Body: map[string]any{
			"name": "hc-lcol-data", "filesystem": "lcol", "network": acctest.HCL("hypercompute_network.net.name"),
		},
		Unprotect: map[string]any{"deletion_protection": false},
	})
}
