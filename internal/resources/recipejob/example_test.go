package recipejob_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check, with the cluster and partition it
// refers to, and planning it changes nothing in the cloud.
func TestAccRecipeJob_example(t *testing.T) {
	env := acctest.New(t)
	example, err := os.ReadFile("../../../examples/resources/hypercompute_recipe_job/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	cluster := `
resource "hypercompute_network" "cluster" {
  name   = "ml-prod"
  subnet = { cidr = "10.0.0.0/20" }
}

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

resource "hypercompute_node_partition" "a3mega" {
  cluster           = hypercompute_training_cluster.prod.id
  name              = "a3mega"
  machine_type      = "a3-megagpu-8g"
  static_node_count = 2
  provisioning      = { model = "reservation", reservation = "a3mega" }
}

resource "hypercompute_node_partition" "cpu" {
  cluster           = hypercompute_training_cluster.prod.id
  name              = "cpu"
  machine_type      = "n2-standard-8"
  static_node_count = 2
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
	if n := env.Calls().Mutating; n != 0 {
		t.Errorf("planning the example made %d mutating API calls", n)
	}
}
