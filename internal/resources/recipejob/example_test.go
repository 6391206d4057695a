package recipejob_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check, with the cluster and partition it
// refers to, and planning it changes nothing in the cloud.
func TestAccRecipeJob_example(t *testing.T) {
	env := acctest.New(t)
	env.SeedExampleReservation(t)
	cpu := `
resource "hypercompute_node_partition" "cpu" {
  cluster           = hypercompute_training_cluster.prod.id
  name              = "cpu"
  machine_type      = "n2-standard-8"
  static_node_count = 2
}
`
	// The example reads its custom program from its own directory; the test plans it elsewhere.
	example := strings.ReplaceAll(acctest.Example(t, "hypercompute_recipe_job"), `file("${path.module}/train_regression.py")`, fmt.Sprintf("file(%q)", exampleProgram(t)))
	if !strings.Contains(example, "train_regression.py\")") {
		t.Fatal("the example no longer runs train_regression.py")
	}
	env.PlanConfig(t, factories, example+acctest.ExampleNetworkConfig+acctest.ExampleClusterConfig+acctest.ExampleA3MegaPartitionConfig+cpu)
	if n := env.Calls().Mutating; n != 0 {
		t.Errorf("planning the example made %d mutating API calls", n)
	}
}
