package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// PlanFails runs config as a plan-only subtest named name, served by factories, and requires its
// error to match want (see ErrorMatching): bad input is refused at plan with the attribute named.
func PlanFails(t *testing.T, factories map[string]func() (tfprotov6.ProviderServer, error), name, config, want string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: factories,
			Steps:                    []resource.TestStep{{Config: config, PlanOnly: true, ExpectError: ErrorMatching(want)}},
		})
	})
}

// RequireNoCalls fails the test when the emulator has served any call since the test began (or
// its last ResetCalls): what refused bad input must not have reached the API.
func (e *Env) RequireNoCalls(t *testing.T, what string) {
	t.Helper()
	if n := e.Calls().Total; n != 0 {
		t.Fatalf("%s made %d API calls; want 0: %v", what, n, e.Calls().Methods)
	}
}

// RequireNoMutations fails the test when the emulator has served a mutating call since the test
// began (or its last ResetCalls): a plan-time check may read what it checks against (a cluster's
// partitions), but what refused bad input must have changed nothing.
func (e *Env) RequireNoMutations(t *testing.T, what string) {
	t.Helper()
	if c := e.Calls(); c.Mutating != 0 {
		t.Fatalf("%s made %d mutating API calls; want 0: %v", what, c.Mutating, c.Methods)
	}
}
