package healthpolicy_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's examples (the policy and the data source) pass every plan-time check, with
// the cluster and partition they refer to, and planning them changes nothing in the cloud.
func TestAccHealthPolicy_example(t *testing.T) {
	env := acctest.New(t)
	env.SeedExampleReservation(t)
	examples := acctest.Example(t, "hypercompute_health_policy") + "\n" + acctest.DataSourceExample(t, "hypercompute_cluster_health") + "\n"
	env.PlanConfig(t, factories, examples+acctest.ExampleNetworkConfig+acctest.ExampleClusterConfig+acctest.ExampleA3MegaPartitionConfig)
	if n := env.Calls().Mutating; n != 0 {
		t.Errorf("planning the examples made %d mutating API calls", n)
	}
}
