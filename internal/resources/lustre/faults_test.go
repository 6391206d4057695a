package lustre_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

var faults = acctest.StorageFaults{Factories: factories, Kind: acctest.KindLustre, API: "lustre"}

// A create operation that fails carries the API's message into the error and leaves nothing behind;
// the next apply creates the instance.
func TestAccLustre_failedCreate(t *testing.T) {
	env := acctest.New(t)
	faults.FailedCreate(t, env, env.Config(networkConfig("hc-luf", "")+instanceConfig("hc-data", "lustrefs", unprotected)),
		"Not enough Lustre capacity in us-central1-a for 36000 GiB at 1000 MBps/TiB (injected)",
		acctest.ErrorMatching(`(?s)Unable to create Managed Lustre instance hc-data.*operation projects/hc-acc-test/locations/us-central1-a/operations/\S+ failed: RESOURCE_EXHAUSTED: Not enough Lustre capacity in us-central1-a for 36000 GiB at 1000 MBps/TiB \(injected\)`))
}

// With 30% of Lustre calls answered 503 — some after the work was done — apply, update and destroy
// still succeed and the instance exists once. With seed 7 the first create's answer is lost after
// the work was done; the resend carries the same requestId and gets the first operation back.
func TestAccLustre_throttled(t *testing.T) {
	env := acctest.New(t)
	faults.Throttled(t, env, 7,
		env.Config(networkConfig("hc-lut", "")+instanceConfig("hc-data", "lustrefs", unprotected)),
		env.Config(networkConfig("hc-lut", "")+instanceConfig("hc-data", "lustrefs", unprotected+"  capacity_gib = 45000\n")))
}
