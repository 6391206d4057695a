package network_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

const gpuExtra = `
  gpu_networks = {
    stack = "tcpxo"
  }
`

// With 30% of every call answered 429 or 503 — including calls whose work was done before the
// answer was lost — an apply still succeeds and nothing exists twice.
func TestAccNetwork_throttled(t *testing.T) {
	env := acctest.New(t)
	seed := uint64(7)
	env.ApplyFaults(t, core.FaultSpec{Seed: &seed, ErrorRates: []core.ErrorRate{
		{Method: "compute.*", Rate: 0.3, Code: 503},
		{Method: "servicenetworking.*", Rate: 0.3, Code: 429},
		{Method: "compute.*.insert", Rate: 0.3, Code: 503, AfterHandler: true},
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{{
			Config: env.Config(basicConfig("hc-throttle", "10.3.0.0/20", gpuExtra)),
			Check: resource.ComposeAggregateTestCheckFunc(
				env.CheckCount("compute.networks", 9),
				env.CheckCount("compute.subnetworks", 9),
				env.CheckCount("compute.firewalls", 10),
				env.CheckCount("compute.routers", 1),
				env.CheckCount("compute.globalAddresses", 1),
				env.CheckCount("servicenetworking.connections", 1),
				env.CheckErrorsInjected(),
			),
		}},
	})
}

// A failed operation fails the apply with the API's own message; the next apply converges and a
// destroy leaves nothing behind.
func TestAccNetwork_failedOperation(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(basicConfig("hc-fail", "10.4.0.0/20", ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{FailOperations: []core.FailOperations{{
						Method: "compute.routers.insert", Count: 1, HTTPStatus: 400,
						Code: "INVALID_USAGE", Message: "Router hc-fail-router: NAT configuration is invalid for this network (injected)",
					}}})
				},
				Config:      cfg,
				ExpectError: acctest.ErrorMatching(`creating Cloud Router hc-fail-router with NAT: operation \S+ failed: INVALID_USAGE: Router hc-fail-router: NAT configuration is invalid for this network \(injected\)`),
			},
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount("compute.networks", 1),
					env.CheckCount("compute.routers", 1),
					env.CheckCount("compute.subnetworks", 1),
				),
			},
		},
	})
}

// A read that fails during apply is an error naming what could not be read; the state never gets
// an unknown value (Terraform would reject it as an invalid result object), and the next apply,
// with the API answering again, converges.
func TestAccNetwork_readFailureIsAnError(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(basicConfig("hc-unread", "10.7.0.0/20", ""))
	var stepErr error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		// ExpectError can only say what the error holds; this also says what it must not hold.
		ErrorCheck: func(err error) error { stepErr = err; return nil },
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{ErrorRates: []core.ErrorRate{{Method: "compute.subnetworks.get", Rate: 1, Code: 503}}})
				},
				Config: cfg,
			},
			{
				PreConfig: func() {
					switch {
					case stepErr == nil:
						t.Fatal("the apply with subnetworks.get failing succeeded; want an error")
					case invalidResult.MatchString(stepErr.Error()):
						t.Fatalf("the failed read left unknown values in the state: %v", stepErr)
					case !readSubnetErr.MatchString(stepErr.Error()):
						t.Fatalf("the error does not name the failed read: %v", stepErr)
					}
					stepErr = nil
					env.ClearFaults()
				},
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount("compute.networks", 1),
					env.CheckCount("compute.subnetworks", 1),
					env.CheckCount("compute.firewalls", 2),
				),
			},
		},
	})
	if stepErr != nil {
		t.Fatalf("the apply after the API recovered failed: %v", stepErr)
	}
}

var (
	invalidResult = acctest.ErrorMatching(`invalid result object`)
	readSubnetErr = acctest.ErrorMatching(`subnetwork hc-unread-subnet: .*503`)
)

// A network whose read-back fails after the apply made it is still recorded (failed, so tainted),
// never dropped: the next apply replaces it instead of finding a finished network no state owns.
func TestAccNetwork_readBackFailureKeepsState(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(basicConfig("hc-unseen", "10.10.0.0/20", ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				// The create's own lookups (before and after its insert) succeed; the read-back does not.
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{ErrorRates: []core.ErrorRate{{Method: "compute.networks.get", Rate: 1, Code: 503, SkipFirst: 2}}})
				},
				Config:      cfg,
				ExpectError: acctest.ErrorMatching(`Unable to read network hc-unseen`),
			},
			{
				PreConfig: env.ClearFaults,
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount("compute.networks", 1),
					env.CheckCount("compute.firewalls", 2),
				),
			},
		},
	})
}
