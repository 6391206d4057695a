package filestore_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/filestore"
)

// labels = {} and unset labels plan nothing after apply, refresh and import (issue 19).
func TestAccFilestore_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: filestore.NewResource,
		Prelude: `
resource "hypercompute_network" "net" {
  name   = "hc-fscol"
  subnet = { cidr = "10.0.0.0/20" }
}
`,
		Body: map[string]any{
			"name": "hc-fscol-home", "tier": "BASIC_HDD", "share": map[string]any{"capacity_gb": 1024},
			"network": map[string]any{"name": acctest.HCL("hypercompute_network.net.name")},
		},
		Unprotect: map[string]any{"deletion_protection": false},
	})
}
