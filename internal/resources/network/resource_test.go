package network_test

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

const addr = "hypercompute_network.test"

func basicConfig(name, cidr string, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "test" {
  name = %q
  subnet = {
    cidr = %q
  }
%s
}
`, name, cidr, extra)
}

func TestAccNetwork_basic(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.Config(basicConfig("hc-basic", "10.0.0.0/20", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/hc-acc-test/global/networks/hc-basic")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mtu"), knownvalue.Int64Exact(8896)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("subnet").AtMapKey("self_link"),
						knownvalue.StringExact("https://www.googleapis.com/compute/v1/projects/hc-acc-test/regions/us-central1/subnetworks/hc-basic-subnet")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("router_name"), knownvalue.StringExact("hc-basic-router")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("firewall_rules"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("hc-basic-allow-internal"), knownvalue.StringExact("hc-basic-allow-iap-ssh"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("private_service_access").AtMapKey("range_name"), knownvalue.StringExact("hc-basic-psa")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("private_service_access").AtMapKey("peering"), knownvalue.StringExact("servicenetworking-googleapis-com")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckFirewallSources("hc-basic-allow-iap-ssh", "35.235.240.0/20"),
					env.CheckFirewallSources("hc-basic-allow-internal", "10.0.0.0/20"),
					env.CheckNoPublicIngress(),
				),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "projects/hc-acc-test/global/networks/hc-basic",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

func TestAccNetwork_updateInPlace(t *testing.T) {
	env := acctest.New(t)
	update := func(id string) []plancheck.PlanCheck {
		return []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{Config: env.Config(basicConfig("hc-upd", "10.128.0.0/20", ""))},
			{
				// MTU, SSH and NAT off, a wider subnet, a GPU network set: all in place.
				Config: env.Config(basicConfig("hc-upd", "10.128.0.0/19", `
  mtu            = 1500
  enable_iap_ssh = false
  enable_nat     = false
  gpu_networks = {
    stack = "tcpx"
  }
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: update(addr)},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("mtu"), knownvalue.Int64Exact(1500)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("subnet").AtMapKey("cidr"), knownvalue.StringExact("10.128.0.0/19")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("router_name"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("attachments"), knownvalue.ListSizeExact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("mtu"), knownvalue.Int64Exact(8244)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckAbsent("compute.firewalls", "hc-upd-allow-iap-ssh"),
					env.CheckAbsent("compute.routers", "hc-upd-router"),
					env.CheckCount("compute.networks", 5),
				),
			},
			{
				// tcpx → rdma: the four gVNIC VPCs give way to one host VPC and the RoCE VPC.
				Config: env.Config(basicConfig("hc-upd", "10.128.0.0/19", `
  gpu_networks = {
    stack        = "rdma"
    zone         = "us-central1-b"
    subnet_count = 4
  }
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: update(addr)},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("attachments"), knownvalue.ListSizeExact(5)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("attachments").AtSliceIndex(4).AtMapKey("nic_type"), knownvalue.StringExact("MRDMA")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("enable_iap_ssh"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount("compute.networks", 3),
					env.CheckAbsent("compute.networks", "hc-upd-gpu-3"),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hc-acc-test/us-central1/hc-upd", ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

func TestAccNetwork_disappears(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(basicConfig("hc-gone", "10.1.0.0/20", ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					// Someone tears the whole network down by hand.
					return env.DeleteNetworkOutOfBand(context.Background(), "hc-gone")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
				Check:            env.CheckCount("compute.networks", 1),
			},
		},
	})
}

func TestAccNetwork_partDisappears(t *testing.T) {
	env := acctest.New(t)
	cfg := env.Config(basicConfig("hc-part", "10.2.0.0/20", ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					c := env.Clients()
					op, err := c.Firewalls.Delete(context.Background(), &computepb.DeleteFirewallRequest{Project: acctest.Project, Firewall: "hc-part-allow-iap-ssh"})
					if err != nil {
						return err
					}
					_, err = c.WaitCompute(context.Background(), op)
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				// The missing rule shows as drift and an in-place update puts it back.
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check:            env.CheckPresent("compute.firewalls", "hc-part-allow-iap-ssh"),
			},
		},
	})
}

// Bad input is refused at plan time, names the attribute, and never reaches the API.
func TestAccNetwork_invalidInput(t *testing.T) {
	env := acctest.New(t)
	cases := []struct {
		name, body string
		want       string
	}{
		{"invalid CIDR", basicConfig("hc-bad", "10.0.0.0/33", ""), `subnet\.cidr: "10\.0\.0\.0/33" is not an IPv4 CIDR`},
		{"host bits", basicConfig("hc-bad", "10.0.0.1/20", ""), `subnet\.cidr: "10\.0\.0\.1/20" has host bits set`},
		{"public CIDR", basicConfig("hc-bad", "8.8.0.0/16", ""), `subnet\.cidr: "8\.8\.0\.0/16" is not inside a private range`},
		{"invalid name", basicConfig("HC_Bad", "10.0.0.0/20", ""), `name "HC_Bad" is invalid: it contains uppercase letters`},
		{"name too long", basicConfig("hc-abcdefghijklmnopqrstuvwxyz0123456789abcdefghij", "10.0.0.0/20", ""), `name: .* the network name is at most 48`},
		{"MTU too small", basicConfig("hc-bad", "10.0.0.0/20", "  mtu = 1200\n"), `mtu value must be between 1300 and 8896`},
		{"MTU too large", basicConfig("hc-bad", "10.0.0.0/20", "  mtu = 9000\n"), `mtu value must be between 1300 and 8896`},
		{"unknown GPU stack", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = { stack = \"infiniband\" }\n"), `gpu_networks\.stack value must be one of`},
		{"subnet count too high", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"rdma\"\n    zone = \"us-central1-b\"\n    subnet_count = 9\n  }\n"), `gpu_networks\.subnet_count value must be between 1 and 8`},
		{"subnet count zero", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"rdma\"\n    zone = \"us-central1-b\"\n    subnet_count = 0\n  }\n"), `gpu_networks\.subnet_count value must be between 1 and 8`},
		{"subnet count on tcpxo", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"tcpxo\"\n    subnet_count = 2\n  }\n"), `gpu_networks\.subnet_count applies to the rdma stack only`},
		{"rdma zone without profile", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"rdma\"\n    zone = \"us-central1-f\"\n  }\n"), `gpu_networks\.zone: zone us-central1-f has no us-central1-f-vpc-roce network profile`},
		{"GPU range overlaps subnet", basicConfig("hc-bad", "192.168.0.0/20", "  gpu_networks = { stack = \"tcpx\" }\n"), `gpu_networks\.cidr: GPU subnet 192\.168\.0\.0/24 .* overlaps subnet\.cidr`},
		{"GPU subnet larger than its slot", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"tcpxo\"\n    subnet_prefix_length = 18\n  }\n"),
			`gpu_networks\.subnet_prefix_length: a /18 GPU subnet does not fit: gpu_networks\.cidr 192\.168\.0\.0/16 holds the tcpxo stack's 8 GPU subnet slots of a /19 each`},
		{"GPU subnet prefix out of range", basicConfig("hc-bad", "10.0.0.0/20", "  gpu_networks = {\n    stack = \"tcpx\"\n    subnet_prefix_length = 30\n  }\n"),
			`gpu_networks\.subnet_prefix_length value must be between 8 and 29`},
		{"unknown region", basicConfig("hc-bad", "10.0.0.0/20", "  region = \"mars-north1\"\n"), `region: "mars-north1" is not a known region`},
		{"PSA prefix out of range", basicConfig("hc-bad", "10.0.0.0/20", "  private_service_access = { prefix_length = 28 }\n"), `private_service_access\.prefix_length value must be between 8 and 24`},
		{"PSA address misaligned", basicConfig("hc-bad", "10.0.0.0/20", "  private_service_access = {\n    prefix_length = 20\n    address = \"10.100.1.0\"\n  }\n"), `private_service_access\.address: 10\.100\.1\.0 is not the first address of a /20; use 10\.100\.0\.0`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, acctest.ProviderFactories, tc.name, env.Config(tc.body), tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}
