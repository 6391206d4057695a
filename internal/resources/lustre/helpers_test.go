package lustre_test

import (
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/lustre"
)

const addr = "hypercompute_lustre.test"

// factories serve the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(lustre.NewResource)

// networkConfig is the cluster network, with private service access unless extra turns it off.
func networkConfig(name, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name   = %q
  subnet = { cidr = "10.0.0.0/20" }
%s
}
`, name, extra)
}

// instanceConfig is a Lustre instance on the network above; extra goes inside the block.
func instanceConfig(name, filesystem, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_lustre" "test" {
  name       = %q
  filesystem = %q
  network    = hypercompute_network.net.name
%s
}
`, name, filesystem, extra)
}

const unprotected = "  deletion_protection = false\n"
