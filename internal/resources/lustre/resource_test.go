package lustre_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

func TestAccLustre_basic(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.Config(networkConfig("hc-lu", "") + instanceConfig("hc-data", "lustrefs", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/hc-acc-test/locations/us-central1-a/instances/hc-data")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("zone"), knownvalue.StringExact("us-central1-a")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("capacity_gib"), knownvalue.Int64Exact(36000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("per_unit_storage_throughput"), knownvalue.Int64Exact(1000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network"), knownvalue.StringExact("hc-lu")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_protection"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mount_point"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+@tcp:/lustrefs$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mount_source"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+@tcp:/lustrefs$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ip_address"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`))),
				},
				Check: env.CheckLustre("hc-data", func(i *wire.Instance) error {
					if i.Network != "projects/hc-acc-test/global/networks/hc-lu" || i.CapacityGib != 36000 || i.PerUnitStorageThroughput != 1000 {
						return fmt.Errorf("network %q, capacity %d, throughput %d", i.Network, i.CapacityGib, i.PerUnitStorageThroughput)
					}
					return nil
				}),
			},
			{
				// An imported instance starts protected, which is what the configuration asks for.
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "projects/hc-acc-test/locations/us-central1-a/instances/hc-data", ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hc-acc-test/us-central1-a/hc-data", ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Protection lives in state only: lifting it makes no API write.
				PreConfig:        env.ResetCalls,
				Config:           env.Config(networkConfig("hc-lu", "") + instanceConfig("hc-data", "lustrefs", unprotected)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check:            env.CheckNoWrites("lustre."),
			},
		},
	})
}

func TestAccLustre_updateInPlace(t *testing.T) {
	env := acctest.New(t)
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.Config(networkConfig("hc-luu", "") + instanceConfig("hc-ckpt", "ckpt", unprotected+`
  per_unit_storage_throughput = 500
  capacity_gib                = 18000
  labels                      = { purpose = "checkpoints" }
`)),
			},
			{
				Config: env.Config(networkConfig("hc-luu", "") + instanceConfig("hc-ckpt", "ckpt", unprotected+`
  per_unit_storage_throughput = 500
  capacity_gib                = 54000
  labels                      = { purpose = "checkpoints", team = "llm" }
  description                 = "llama checkpoints"
`)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("capacity_gib"), knownvalue.Int64Exact(54000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels"), knownvalue.MapSizeExact(2)),
				},
				Check: env.CheckLustre("hc-ckpt", func(i *wire.Instance) error {
					if i.CapacityGib != 54000 || i.Labels["team"] != "llm" || i.Description != "llama checkpoints" || i.State != wire.StateActive {
						return fmt.Errorf("capacity %d, labels %v, description %q, state %s", i.CapacityGib, i.Labels, i.Description, i.State)
					}
					return nil
				}),
			},
			{
				Config: env.Config(networkConfig("hc-luu", "") + instanceConfig("hc-ckpt", "ckpt", unprotected+`
  per_unit_storage_throughput = 500
  capacity_gib                = 54000
`)),
				ConfigPlanChecks: update,
				Check: env.CheckLustre("hc-ckpt", func(i *wire.Instance) error {
					if len(i.Labels) != 0 || i.Description != "" {
						return fmt.Errorf("labels %v, description %q; want none", i.Labels, i.Description)
					}
					return nil
				}),
			},
		},
	})
}

func TestAccLustre_disappears(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(networkConfig("hc-lud", "") + instanceConfig("hc-data", "lustrefs", unprotected))
	faults.Disappears(t, env, addr, cfg, func() error {
		return env.DeleteLustreOutOfBand(context.Background(), acctest.Zone, "hc-data")
	})
}

// A network without private service access is refused by the API, and its message reaches the user.
func TestAccLustre_networkWithoutPSA(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{{
			Config:      env.Config(networkConfig("hc-nopsa", "  private_service_access = { enabled = false }\n") + instanceConfig("hc-data", "lustrefs", unprotected)),
			ExpectError: acctest.ErrorMatching(`Private service access is required but not configured for network 'projects/hc-acc-test/global/networks/hc-nopsa'`),
		}},
	})
}
