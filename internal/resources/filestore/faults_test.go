package filestore_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

var faults = acctest.StorageFaults{Factories: factories, Kind: acctest.KindFilestore, API: "file"}

// A create operation that fails carries the API's message into the error and leaves nothing behind;
// the next apply creates the instance.
func TestAccFilestore_failedCreate(t *testing.T) {
	env := acctest.New(t)
	faults.FailedCreate(t, env, env.Config(networkConfig("hc-fsf")+instanceConfig("hc-home", "BASIC_SSD", 2560, unprotected)),
		"Insufficient capacity for BASIC_SSD in us-central1-a (injected)",
		acctest.ErrorMatching(`(?s)Unable to create Filestore instance hc-home.*operation projects/hc-acc-test/locations/us-central1-a/operations/\S+ failed: RESOURCE_EXHAUSTED: Insufficient capacity for BASIC_SSD in us-central1-a \(injected\)`))
}

// With 30% of Filestore calls answered 503 — creates included, some after the instance was made —
// apply, update and destroy still succeed and the instance exists once. With seed 11 the first
// create's answer is lost after the instance was made, so the resent create meets ALREADY_EXISTS
// and the provider adopts its own instance.
func TestAccFilestore_throttled(t *testing.T) {
	env := acctest.New(t)
	faults.Throttled(t, env, 11,
		env.Config(networkConfig("hc-fst")+instanceConfig("hc-home", "BASIC_HDD", 1024, unprotected)),
		env.Config(networkConfig("hc-fst")+instanceConfig("hc-home", "BASIC_HDD", 1536, unprotected)))
}
