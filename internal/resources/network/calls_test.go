package network_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A clean create only creates: no DELETE for a firewall rule, router or range that does not exist
// (the API answers 404 to each, and audit logs fill with deletions no one asked for) — with every
// part on, and with the optional parts off.
func TestAccNetwork_createSendsNoDeletes(t *testing.T) {
	cases := []struct{ name, extra string }{
		{"defaults", ""},
		{"optional parts off", `
  enable_iap_ssh = false
  enable_nat     = false
  private_service_access = {
    enabled = false
  }
`},
		{"gpu networks", gpuExtra},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := acctest.New(t)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             env.CheckNothingLeft,
				Steps: []resource.TestStep{{
					Config: env.Config(basicConfig("hc-calls", "10.8.0.0/20", tc.extra)),
					Check: func(*terraform.State) error {
						var deletes []string
						for m, c := range env.Calls().Methods {
							if c.Mutating && strings.Contains(strings.ToLower(m), "delete") {
								deletes = append(deletes, m)
							}
						}
						if len(deletes) > 0 {
							t.Errorf("a clean create sent deletions: %v", deletes)
						}
						return nil
					},
				}},
			})
		})
	}
}
