package acctest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// StorageFaults is one storage resource (Filestore, Managed Lustre) under the fault tests the two
// share: a failed create leaves nothing behind, and a throttled API is ridden out.
type StorageFaults struct {
	Factories map[string]func() (tfprotov6.ProviderServer, error)
	// Kind is the instance's inventory kind; API the prefix of its service's methods ("file").
	Kind, API string
}

func (s StorageFaults) method(m string) string { return s.API + ".projects.locations.instances." + m }

// FailedCreate: a create operation that fails with message carries it into the error (want) and
// leaves nothing behind; the next apply of cfg creates the instance.
func (s StorageFaults) FailedCreate(t *testing.T, env *Env, cfg, message string, want *regexp.Regexp) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: s.Factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{FailOperations: []core.FailOperations{{
						Method: s.method("create"), Count: 1, HTTPStatus: 429, Code: "RESOURCE_EXHAUSTED", Message: message,
					}}})
				},
				Config:      cfg,
				ExpectError: want,
			},
			{
				PreConfig: func() {
					if n := env.Inventory().Count(s.Kind); n != 0 {
						t.Fatalf("the failed create left %d %s behind", n, s.Kind)
					}
				},
				Config: cfg,
				Check:  env.CheckCount(s.Kind, 1),
			},
		},
	})
}

// Throttled: with 30% of the service's calls answered 503 (creates, patches and deletes some of
// them after the work was done) applying cfg, updating it to updated and destroying still succeed
// and the instance exists once. seed must be one whose first create's answer is lost after the
// work was done, so that the resent create is exercised.
func (s StorageFaults) Throttled(t *testing.T, env *Env, seed uint64, cfg, updated string) {
	env.ApplyFaults(t, core.FaultSpec{Seed: &seed, ErrorRates: []core.ErrorRate{
		{Method: s.API + ".*", Rate: 0.3, Code: 503},
		{Method: s.method("create"), Rate: 0.3, Code: 503, AfterHandler: true},
		{Method: s.method("patch"), Rate: 0.3, Code: 503, AfterHandler: true},
		{Method: s.method("delete"), Rate: 0.3, Code: 503, AfterHandler: true},
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: s.Factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount(s.Kind, 1),
					env.CheckErrorsInjected(),
					func(*terraform.State) error {
						if n := env.CallCount(s.method("create")); n < 2 {
							return fmt.Errorf("instances.create was called %d times; the lost-answer case was not exercised", n)
						}
						return nil
					},
				),
			},
			{Config: updated, Check: env.CheckCount(s.Kind, 1)},
		},
	})
}

// Disappears: an instance of cfg at addr that remove deletes outside Terraform is planned for
// creation again, and the apply makes it once.
func (s StorageFaults) Disappears(t *testing.T, env *Env, addr, cfg string, remove func() error) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: s.Factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:             cfg,
				Check:              func(*terraform.State) error { return remove() },
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
				Check:            env.CheckCount(s.Kind, 1),
			},
		},
	})
}
