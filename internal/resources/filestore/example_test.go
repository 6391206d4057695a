package filestore_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check.
func TestAccFilestore_example(t *testing.T) {
	acctest.PlanExample(t, factories, "hypercompute_filestore")
}
