package healthpolicy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's examples (the policy and the data source) pass every plan-time check, with
// the cluster and partition they refer to, and planning them changes nothing in the cloud.
func TestAccHealthPolicy_example(t *testing.T) {
	env := acctest.New(t)
	var examples string
	for _, f := range []string{"../../../examples/resources/hypercompute_health_policy/resource.tf", "../../../examples/data-sources/hypercompute_cluster_health/data-source.tf"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		examples += string(b) + "\n"
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
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(examples + cluster),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	if n := env.Calls().Mutating; n != 0 {
		t.Errorf("planning the examples made %d mutating API calls", n)
	}
}
