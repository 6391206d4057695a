package bucket_test

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check.
func TestAccBucket_example(t *testing.T) {
	env := acctest.New(t)
	example, err := os.ReadFile("../../../examples/resources/hypercompute_bucket/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(string(example)),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
