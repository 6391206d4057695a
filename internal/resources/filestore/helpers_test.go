package filestore_test

import (
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/filestore"
)

const addr = "hypercompute_filestore.test"

// factories serve the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(filestore.NewResource)

// networkConfig is the cluster network every instance attaches to, with private service access.
func networkConfig(name string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name   = %q
  subnet = { cidr = "10.0.0.0/20" }
}
`, name)
}

// instanceConfig is a Filestore instance on the network above; extra goes inside the block.
func instanceConfig(name, tier string, capacity int, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_filestore" "test" {
  name  = %q
  tier  = %q
  share = {
    capacity_gb = %d
  }
  network = {
    name = hypercompute_network.net.name
  }
%s
}
`, name, tier, capacity, extra)
}

// standalone is an instance referencing a network by name only, for plan-only configurations.
func standalone(body string) string {
	return fmt.Sprintf(`
resource "hypercompute_filestore" "test" {
  name    = "hc-home"
%s
}
`, body)
}

const unprotected = "  deletion_protection = false\n"
