package filestore_test

import (
	"fmt"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Every change that would lose data is refused at plan time with the attribute named, and the
// instance is left exactly as it was: no mutating Filestore call is made.
func TestAccFilestore_dataSafety(t *testing.T) {
	env := acctest.New(t)
	net := networkConfig("hc-fss")
	cfg := func(tier string, capacity int, extra string) string {
		return env.Config(net + instanceConfig("hc-home", tier, capacity, extra))
	}
	untouched := resource.ComposeAggregateTestCheckFunc(
		env.CheckNoWrites("file."),
		env.CheckFilestore("hc-home", func(i *filestorepb.Instance) error {
			if i.GetTier() != filestorepb.Instance_BASIC_HDD || i.GetFileShares()[0].GetCapacityGb() != 2048 ||
				i.GetFileShares()[0].GetName() != "home" || i.GetProtocol() != filestorepb.Instance_NFS_V3 ||
				i.GetState() != filestorepb.Instance_READY || !i.GetDeletionProtectionEnabled() {
				return fmt.Errorf("instance changed: tier %s, share %s %d GB, protocol %s, state %s, protected %t", i.GetTier(),
					i.GetFileShares()[0].GetName(), i.GetFileShares()[0].GetCapacityGb(), i.GetProtocol(), i.GetState(), i.GetDeletionProtectionEnabled())
			}
			return nil
		}),
	)
	resetCalls := func() { env.ResetCalls() }
	refused := func(config, want string) resource.TestStep {
		return resource.TestStep{PreConfig: resetCalls, Config: config, ExpectError: acctest.ErrorMatching(want)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{Config: cfg("BASIC_HDD", 2048, `  deletion_protection_reason = "home directories of the ml team"`)},
			// Removing the resource is a destroy: refused while protected.
			refused(env.Config(net), `deletion_protection: Filestore instance projects/hc-acc-test/locations/us-central1-a/instances/hc-home is protected and would be destroyed. Set deletion_protection = false`),
			refused(cfg("BASIC_SSD", 2560, ""), `(?s)tier: cannot change from "BASIC_HDD" to "BASIC_SSD" on Filestore instance.*replacing the instance would destroy the data on it`),
			refused(cfg("BASIC_HDD", 2048, `  protocol = "NFS_V4_1"`), `protocol: cannot change from "NFS_V3" to "NFS_V4_1"`),
			refused(cfg("BASIC_HDD", 1024, ""), `share\.capacity_gb cannot shrink from 2048 to 1024: tier BASIC_HDD can only grow`),
			refused(env.Config(net+`
resource "hypercompute_filestore" "test" {
  name    = "hc-home"
  tier    = "BASIC_HDD"
  share   = {
    name        = "users"
    capacity_gb = 2048
  }
  network = { name = hypercompute_network.net.name }
}
`), `share\.name: cannot change from "home" to "users"`),
			refused(cfg("BASIC_HDD", 2048, `  location = "us-central1-b"`), `location: cannot change from "us-central1-a" to "us-central1-b"`),
			{
				PreConfig: resetCalls,
				Config:    cfg("BASIC_HDD", 2048, `  deletion_protection_reason = "home directories of the ml team"`),
				Check:     untouched,
			},
			// What the messages ask for: lift protection, apply, and the destroy proceeds.
			{Config: cfg("BASIC_HDD", 2048, unprotected)},
		},
	})
}
