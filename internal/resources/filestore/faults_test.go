package filestore_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// A create operation that fails carries the API's message into the error and leaves nothing behind;
// the next apply creates the instance.
func TestAccFilestore_failedCreate(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(networkConfig("hc-fsf") + instanceConfig("hc-home", "BASIC_SSD", 2560, unprotected))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{FailOperations: []core.FailOperations{{
						Method: "file.projects.locations.instances.create", Count: 1, HTTPStatus: 429, Code: "RESOURCE_EXHAUSTED",
						Message: "Insufficient capacity for BASIC_SSD in us-central1-a (injected)",
					}}})
				},
				Config:      cfg,
				ExpectError: acctest.ErrorMatching(`(?s)Unable to create Filestore instance hc-home.*operation projects/hc-acc-test/locations/us-central1-a/operations/\S+ failed: RESOURCE_EXHAUSTED: Insufficient capacity for BASIC_SSD in us-central1-a \(injected\)`),
			},
			{
				PreConfig: func() {
					if n := env.Inventory().Count(acctest.KindFilestore); n != 0 {
						t.Fatalf("the failed create left %d Filestore instances behind", n)
					}
				},
				Config: cfg,
				Check:  env.CheckCount(acctest.KindFilestore, 1),
			},
		},
	})
}

// With 30% of Filestore calls answered 503 — creates included, some after the instance was made —
// apply, update and destroy still succeed and the instance exists once.
func TestAccFilestore_throttled(t *testing.T) {
	env := acctest.New(t)
	seed := uint64(11)
	env.ApplyFaults(t, core.FaultSpec{Seed: &seed, ErrorRates: []core.ErrorRate{
		{Method: "file.*", Rate: 0.3, Code: 503},
		{Method: "file.projects.locations.instances.create", Rate: 0.3, Code: 503, AfterHandler: true},
		{Method: "file.projects.locations.instances.patch", Rate: 0.3, Code: 503, AfterHandler: true},
		{Method: "file.projects.locations.instances.delete", Rate: 0.3, Code: 503, AfterHandler: true},
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.Config(networkConfig("hc-fst") + instanceConfig("hc-home", "BASIC_HDD", 1024, unprotected)),
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount(acctest.KindFilestore, 1),
					env.CheckErrorsInjected(),
					func(*terraform.State) error {
						// With this seed the first create's answer is lost after the instance was made, so
						// the resent create meets ALREADY_EXISTS and the provider adopts its own instance.
						if n := env.CallCount("file.projects.locations.instances.create"); n < 2 {
							return fmt.Errorf("instances.create was called %d times; the lost-answer case was not exercised", n)
						}
						return nil
					},
				),
			},
			{
				Config: env.Config(networkConfig("hc-fst") + instanceConfig("hc-home", "BASIC_HDD", 1536, unprotected)),
				Check:  env.CheckCount(acctest.KindFilestore, 1),
			},
		},
	})
}
