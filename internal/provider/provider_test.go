package provider_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// The framework validates every schema (provider and resources) when serving it.
func TestProviderSchemaIsValid(t *testing.T) {
	srv, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	if resp.ResourceSchemas["hypercompute_network"] == nil {
		t.Fatal("hypercompute_network is not registered")
	}
}

// Like the google provider, project/region come from GOOGLE_* and the emulator from
// HYPERCOMPUTE_EMULATOR_HOST when the provider block leaves them out.
func TestAccProvider_environmentFallbacks(t *testing.T) {
	env := acctest.New(t)
	t.Setenv("GOOGLE_PROJECT", "hc-env-project")
	t.Setenv("GOOGLE_REGION", "europe-west4")
	t.Setenv("GOOGLE_ZONE", "europe-west4-a")
	env.Setenv()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "hypercompute" {}

resource "hypercompute_network" "test" {
  name   = "hc-env"
  subnet = { cidr = "10.9.0.0/24" }
  private_service_access = { enabled = false }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("hypercompute_network.test", tfjsonpath.New("project"), knownvalue.StringExact("hc-env-project")),
				statecheck.ExpectKnownValue("hypercompute_network.test", tfjsonpath.New("region"), knownvalue.StringExact("europe-west4")),
				statecheck.ExpectKnownValue("hypercompute_network.test", tfjsonpath.New("subnet").AtMapKey("id"),
					knownvalue.StringExact("projects/hc-env-project/regions/europe-west4/subnetworks/hc-env-subnet")),
			},
		}},
	})
	if n := env.CallCount("compute.networks.insert"); n != 1 {
		t.Fatalf("the network was not created in the emulator named by the environment (inserts: %d)", n)
	}
}

func TestAccProvider_invalidEmulatorHost(t *testing.T) {
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "hypercompute" {
  project       = "hc-acc-test"
  region        = "us-central1"
  emulator_host = "http://localhost"
}

resource "hypercompute_network" "test" {
  name   = "hc-x"
  subnet = { cidr = "10.9.0.0/24" }
}
`,
			PlanOnly:    true,
			ExpectError: acctest.ErrorMatching(`emulator_host.*must be host:port`),
		}},
	})
}
