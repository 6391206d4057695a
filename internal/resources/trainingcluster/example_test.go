package trainingcluster_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
)

// The documentation's example passes every plan-time check in a release build, which fills in the
// agent build it ships (a development build requires agent, see the invalid-input test).
func TestAccTrainingCluster_example(t *testing.T) {
	env := acctest.New(t)
	example, err := os.ReadFile("../../../examples/resources/hypercompute_training_cluster/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	version, sum := release.Version, release.AgentSHA256AMD64
	release.Version, release.AgentSHA256AMD64 = "0.1.0", strings.Repeat("cd", 32)
	t.Cleanup(func() { release.Version, release.AgentSHA256AMD64 = version, sum })
	const ml = "hypercompute_training_cluster.ml"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(string(example)),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("agent").AtMapKey("url"),
					knownvalue.StringExact("https://github.com/hypercompute/terraform-provider-hypercompute/releases/download/v0.1.0/hypercompute-agent_0.1.0_linux_amd64")),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("agent").AtMapKey("sha256"), knownvalue.StringExact(strings.Repeat("cd", 32))),
				// Least privilege per role: Compute only on the controller, storage writes only on nodes.
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("service_accounts").AtMapKey("controller").AtMapKey("scopes"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("https://www.googleapis.com/auth/compute"), knownvalue.StringExact("https://www.googleapis.com/auth/devstorage.read_only"),
					knownvalue.StringExact("https://www.googleapis.com/auth/logging.write"), knownvalue.StringExact("https://www.googleapis.com/auth/monitoring.write")})),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("service_accounts").AtMapKey("compute").AtMapKey("scopes"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("https://www.googleapis.com/auth/devstorage.read_write"),
					knownvalue.StringExact("https://www.googleapis.com/auth/logging.write"), knownvalue.StringExact("https://www.googleapis.com/auth/monitoring.write")})),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("service_accounts").AtMapKey("login").AtMapKey("scopes"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("https://www.googleapis.com/auth/devstorage.read_only"),
					knownvalue.StringExact("https://www.googleapis.com/auth/logging.write"), knownvalue.StringExact("https://www.googleapis.com/auth/monitoring.write")})),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("login_nodes").AtSliceIndex(1).AtMapKey("name"), knownvalue.StringExact("ml-dev-login-1")),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("login_nodes").AtSliceIndex(1).AtMapKey("zone"), knownvalue.StringExact("us-central1-b")),
				// The login VMs' own zone and public IPs: no IAP tunnel.
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh ml-dev-login-0 --zone us-central1-b")),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("login").AtMapKey("os_login"), knownvalue.Bool(true)),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("login_nodes").AtSliceIndex(2).AtMapKey("name"), knownvalue.StringExact("ml-dev-login-research-0")),
				plancheck.ExpectKnownValue(ml, tfjsonpath.New("login_pools").AtSliceIndex(0).AtMapKey("zone"), knownvalue.StringExact("us-central1-a")),
			}},
		}},
	})
	// Planning reads the region's quotas (the plan-time quota check) and nothing else.
	if c := env.Calls(); c.Total != c.Methods["compute.regions.get"].Count {
		t.Fatalf("planning the example made %d API calls besides the quota read; want 0: %v", c.Total-c.Methods["compute.regions.get"].Count, c.Methods)
	}
}
