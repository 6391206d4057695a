package lustre_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// Every change that would lose data is refused at plan time with the attribute named, and the
// instance is left exactly as it was: no mutating Lustre call is made.
func TestAccLustre_dataSafety(t *testing.T) {
	env := acctest.New(t)
	net := networkConfig("hc-lus", "")
	cfg := func(filesystem, extra string) string {
		return env.Config(net + instanceConfig("hc-data", filesystem, extra))
	}
	sized := func(throughput, capacity int) string {
		return fmt.Sprintf("  per_unit_storage_throughput = %d\n  capacity_gib = %d\n", throughput, capacity)
	}
	untouched := resource.ComposeAggregateTestCheckFunc(
		env.CheckNoWrites("lustre."),
		env.CheckLustre("hc-data", func(i *wire.Instance) error {
			if i.CapacityGib != 45000 || i.PerUnitStorageThroughput != 1000 || i.Filesystem != "lustrefs" || i.State != wire.StateActive {
				return fmt.Errorf("instance changed: capacity %d, throughput %d, filesystem %s, state %s", i.CapacityGib, i.PerUnitStorageThroughput, i.Filesystem, i.State)
			}
			return nil
		}),
	)
	refused := func(config, want string) resource.TestStep {
		return resource.TestStep{PreConfig: env.ResetCalls, Config: config, ExpectError: acctest.ErrorMatching(want)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{Config: cfg("lustrefs", sized(1000, 45000))},
			// Removing the resource is a destroy: refused while protected.
			refused(env.Config(net), `deletion_protection: Managed Lustre instance projects/hc-acc-test/locations/us-central1-a/instances/hc-data is protected and would be destroyed. Set deletion_protection = false`),
			refused(cfg("lustrefs", sized(1000, 36000)), `capacity_gib cannot shrink from 45000 to 36000: Managed Lustre capacity can only grow`),
			refused(cfg("lustrefs", sized(500, 54000)), `(?s)per_unit_storage_throughput: cannot change from 1000 to 500 MBps/TiB on Managed Lustre instance.*replacing the instance would destroy the data on it`),
			refused(cfg("ckptfs", sized(1000, 45000)), `filesystem: cannot change from "lustrefs" to "ckptfs"`),
			refused(cfg("lustrefs", sized(1000, 45000)+`  zone = "us-central1-b"`), `zone: cannot change from "us-central1-a" to "us-central1-b"`),
			{PreConfig: env.ResetCalls, Config: cfg("lustrefs", sized(1000, 45000)), Check: untouched},
			// What the messages ask for: lift protection, apply, and the destroy proceeds.
			{Config: cfg("lustrefs", sized(1000, 45000)+unprotected)},
		},
	})
}
