package nodepartition_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check, with the cluster it refers to.
func TestAccNodePartition_example(t *testing.T) {
	env := acctest.New(t)
	example, err := os.ReadFile("../../../examples/resources/hypercompute_node_partition/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	cluster := `
resource "hypercompute_filestore" "home" {
  name                = "ml-prod-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.cluster.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" "prod" {
  name    = "prod"
  network = hypercompute_network.cluster.name
  home    = { filestore = hypercompute_filestore.home.id }
  agent   = { url = "https://example.com/hypercompute-agent", sha256 = "` + strings.Repeat("ab", 32) + `" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(string(example) + cluster),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	if n := env.Calls().Total; n != 0 {
		t.Errorf("planning the example made %d API calls", n)
	}
}
