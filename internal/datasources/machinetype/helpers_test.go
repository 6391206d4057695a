package machinetype_test

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

type terraformState = terraform.State

// noCalls: the data source reads the catalog only.
func noCalls(env *acctest.Env) error {
	if c := env.Calls(); c.Total != 0 {
		return fmt.Errorf("the data source made %d API calls (%v); it must make none", c.Total, c.Methods)
	}
	return nil
}
