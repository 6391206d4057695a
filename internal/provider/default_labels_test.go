package provider_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The provider's default_labels may not set the key the provider keeps to itself (the creation
// marker of Filestore and Managed Lustre): the configuration is refused at plan, naming
// default_labels, before a single API call.
func TestAccProvider_defaultLabelsReservedKey(t *testing.T) {
	env := acctest.New(t)
	cfg := fmt.Sprintf(`
provider "hypercompute" {
  project       = %q
  region        = %q
  zone          = %q
  emulator_host = %q
  default_labels = {
    team                  = "ml"
    "hypercompute-create" = "pending"
  }
}

resource "hypercompute_filestore" "test" {
  name  = "hc-home"
  tier  = "BASIC_HDD"
  share = {
    capacity_gb = 1024
  }
  network = {
    name = "hc-net"
  }
  deletion_protection = false
}
`, acctest.Project, acctest.Region, acctest.Zone, env.Host)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			PlanOnly:    true,
			ExpectError: acctest.ErrorMatching(`(?s)Invalid default_labels.*default_labels: label key "hypercompute-create" is reserved`),
		}},
	})
	env.RequireNoCalls(t, "the refused configuration")
}
