package network_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/network"
)

// The network has no optional collection today; the round trip still proves apply, refresh and
// import plan nothing, and fails once one is added that the body cannot carry.
func TestAccNetwork_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: acctest.ProviderFactories, New: network.NewResource,
		Body: map[string]any{"name": "hc-netcol", "subnet": map[string]any{"cidr": "10.0.0.0/20"}},
	})
}
