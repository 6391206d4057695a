package trainingcluster_test

import (
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/trainingcluster"
)

const addr = "hypercompute_training_cluster.test"

// factories serve the provider with the resources these tests use, registered or not yet.
var factories = acctest.FactoriesWith(trainingcluster.NewResource, filestore.NewResource, lustre.NewResource)

// fakeSHA is an agent digest for API-only tests, where no VM runs the launcher.
var fakeSHA = strings.Repeat("ab", 32)

// storageConfig is a network with private service access and a Filestore /home on it.
func storageConfig(network string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name   = %q
  subnet = { cidr = "10.0.0.0/20" }
}

resource "hypercompute_filestore" "home" {
  name                = "%s-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}
`, network, network)
}

// clusterConfig is a cluster on storageConfig's network and /home; extra goes inside the block.
func clusterConfig(name, agentURL, agentSHA, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_training_cluster" "test" {
  name    = %q
  network = hypercompute_network.net.name
  home    = { filestore = hypercompute_filestore.home.id }
  agent   = { url = %q, sha256 = %q }
%s
}
`, name, agentURL, agentSHA, extra)
}

const unprotected = "  deletion_protection = false\n"
