package filestore_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

func TestAccFilestore_basic(t *testing.T) {
	env := acctest.New(t)
	protected := env.Config(networkConfig("hc-fs") + instanceConfig("hc-home", "BASIC_HDD", 1024, ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: protected,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/hc-acc-test/locations/us-central1-a/instances/hc-home")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("location"), knownvalue.StringExact("us-central1-a")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("protocol"), knownvalue.StringExact("NFS_V3")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("share").AtMapKey("name"), knownvalue.StringExact("home")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("connect_mode"), knownvalue.StringExact("PRIVATE_SERVICE_ACCESS")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("reserved_ip_range"), knownvalue.StringExact("hc-fs-psa")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_protection"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact("READY")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ip_address"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mount_source"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+:/home$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mount_options"), knownvalue.StringRegexp(regexp.MustCompile(`(^|,)hard(,|$).*vers=3$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels"), knownvalue.MapSizeExact(0)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount(acctest.KindFilestore, 1),
					// The share's IP comes from the network's private service access range.
					func(s *terraform.State) error {
						ip, err := netip.ParseAddr(s.RootModule().Resources[addr].Primary.Attributes["ip_address"])
						if err != nil {
							return err
						}
						psa := s.RootModule().Resources["hypercompute_network.net"].Primary.Attributes
						rng, err := netip.ParsePrefix(psa["private_service_access.address"] + "/" + psa["private_service_access.prefix_length"])
						if err != nil {
							return err
						}
						if !rng.Contains(ip) {
							return fmt.Errorf("ip_address %s is not inside the PSA range %s", ip, rng)
						}
						return nil
					},
					env.CheckFilestore("hc-home", func(i *filestorepb.Instance) error {
						if !i.GetDeletionProtectionEnabled() {
							return fmt.Errorf("deletionProtectionEnabled is false; the default is true")
						}
						// Filestore answers a network of the instance's project by its short name.
						if got := i.GetNetworks()[0].GetNetwork(); got != "hc-fs" {
							return fmt.Errorf("network %q", got)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "projects/hc-acc-test/locations/us-central1-a/instances/hc-home",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "us-central1-a/hc-home", ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Lifting protection is an in-place update; then the destroy may go ahead.
				Config:           env.Config(networkConfig("hc-fs") + instanceConfig("hc-home", "BASIC_HDD", 1024, unprotected)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: env.CheckFilestore("hc-home", func(i *filestorepb.Instance) error {
					if i.GetDeletionProtectionEnabled() {
						return fmt.Errorf("deletion protection still on")
					}
					return nil
				}),
			},
		},
	})
}

func TestAccFilestore_updateInPlace(t *testing.T) {
	env := acctest.New(t)
	provider := fmt.Sprintf(`
provider "hypercompute" {
  project        = %q
  region         = %q
  zone           = %q
  emulator_host  = %q
  default_labels = { team = "ml", env = "dev" }
}
`, acctest.Project, acctest.Region, acctest.Zone, env.Host)
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: provider + networkConfig("hc-fsu") + instanceConfig("hc-home", "ZONAL", 1024, unprotected+`
  protocol = "NFS_V4_1"
  labels   = { env = "prod" }
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels"), knownvalue.MapExact(map[string]knownvalue.Check{
						"team": knownvalue.StringExact("ml"), "env": knownvalue.StringExact("prod"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mount_options"), knownvalue.StringRegexp(regexp.MustCompile(`vers=4\.1$`))),
				},
			},
			{
				// Grow, relabel, describe: one PATCH, no replacement.
				Config: provider + networkConfig("hc-fsu") + instanceConfig("hc-home", "ZONAL", 2048, unprotected+`
  protocol    = "NFS_V4_1"
  labels      = { env = "prod", owner = "research" }
  description = "shared /home"
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("share").AtMapKey("capacity_gb"), knownvalue.Int64Exact(2048)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("labels"), knownvalue.MapSizeExact(2)),
				},
				Check: env.CheckFilestore("hc-home", func(i *filestorepb.Instance) error {
					if got := i.GetFileShares()[0].GetCapacityGb(); got != 2048 {
						return fmt.Errorf("capacity %d, want 2048", got)
					}
					if i.GetLabels()["owner"] != "research" || i.GetLabels()["team"] != "ml" || i.GetDescription() != "shared /home" {
						return fmt.Errorf("labels %v, description %q", i.GetLabels(), i.GetDescription())
					}
					return nil
				}),
			},
			{
				// Zonal shares may also shrink in place.
				Config: provider + networkConfig("hc-fsu") + instanceConfig("hc-home", "ZONAL", 1280, unprotected+`
  protocol = "NFS_V4_1"
`),
				ConfigPlanChecks: update,
				Check: env.CheckFilestore("hc-home", func(i *filestorepb.Instance) error {
					if got := i.GetFileShares()[0].GetCapacityGb(); got != 1280 {
						return fmt.Errorf("capacity %d, want 1280", got)
					}
					if _, ok := i.GetLabels()["owner"]; ok || len(i.GetLabels()) != 2 {
						return fmt.Errorf("labels %v, want only the provider defaults", i.GetLabels())
					}
					return nil
				}),
			},
		},
	})
}

func TestAccFilestore_disappears(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(networkConfig("hc-fsd") + instanceConfig("hc-home", "BASIC_HDD", 1024, unprotected))
	faults.Disappears(t, env, addr, cfg, func() error {
		return env.DeleteFilestoreOutOfBand(context.Background(), acctest.Zone, "hc-home")
	})
}
