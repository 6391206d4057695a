package network_test

import (
	"context"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// A second Terraform state applying a network of the same name is refused before it changes
// anything — even with a configuration that would tear the first's firewall rule, router, range
// and peering down — and the first state still owns every part afterwards.
func TestAccNetwork_otherStatesNetwork(t *testing.T) {
	env := acctest.New(t)
	first := env.Config(basicConfig("hc-owned", "10.5.0.0/20", ""))
	second := env.Config(basicConfig("hc-owned", "10.5.0.0/20", `
  enable_iap_ssh = false
  enable_nat     = false
  private_service_access = {
    enabled = false
  }
`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{Config: first},
			{
				// The second state is a test case of its own: its own working directory and state.
				PreConfig: func() {
					before := env.Calls().Mutating
					resource.Test(t, resource.TestCase{
						ProtoV6ProviderFactories: acctest.ProviderFactories,
						Steps: []resource.TestStep{{
							Config: second,
							ExpectError: acctest.ErrorMatching(`(?s)network hc-owned already exists in project hc-acc-test.*` +
								`it may be another Terraform state's, or an interrupted apply of this one.*` +
								`If it is yours: terraform import hypercompute_network\.<name> projects/hc-acc-test/global/networks/hc-owned`),
						}},
					})
					if n := env.Calls().Mutating - before; n != 0 {
						t.Errorf("the refused state made %d mutating calls; want 0: %v", n, env.Calls().Methods)
					}
				},
				// The first state sees no drift: nothing of its network was changed or removed.
				Config:           first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckPresent("compute.firewalls", "hc-owned-allow-iap-ssh"),
					env.CheckPresent("compute.routers", "hc-owned-router"),
					env.CheckPresent("compute.globalAddresses", "hc-owned-psa"),
					env.CheckCount("servicenetworking.connections", 1),
				),
			},
		},
	})
}

// A VPC another tool made (no creation marker, nothing else in it) is refused too, and left as it
// was: no subnet, no rule, its MTU unchanged.
func TestAccNetwork_foreignNetwork(t *testing.T) {
	env := acctest.New(t)
	c := env.Clients()
	ctx := context.Background()
	op, err := c.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: acctest.Project, NetworkResource: &computepb.Network{
		Name: proto.String("hc-foreign"), AutoCreateSubnetworks: proto.Bool(false), Description: proto.String("made with gcloud"),
	}})
	if err == nil {
		_, err = c.WaitCompute(ctx, op)
	}
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      env.Config(basicConfig("hc-foreign", "10.9.0.0/20", "")),
			ExpectError: acctest.ErrorMatching(`(?s)network hc-foreign already exists in project hc-acc-test and was not created by hypercompute_network.*If it is yours: terraform import`),
		}},
	})
	if n := env.Calls().Mutating; n != 1 {
		t.Errorf("the refused create made mutating calls; want only the test's own insert: %v", env.Calls().Methods)
	}
	net, err := c.Networks.Get(ctx, &computepb.GetNetworkRequest{Project: acctest.Project, Network: "hc-foreign"})
	if err != nil {
		t.Fatalf("the foreign network is gone: %v", err)
	}
	if net.Mtu != nil || net.GetDescription() != "made with gcloud" {
		t.Errorf("the foreign network changed: MTU %d, description %q", net.GetMtu(), net.GetDescription())
	}
	if err := env.CheckCount("compute.subnetworks", 0)(nil); err != nil {
		t.Error(err)
	}
}

// An apply that stopped half-way and left no state behind (the provider or Terraform was killed
// before the create returned) is finished by the next apply, which adopts what the first made —
// wherever the first stopped — and a destroy then leaves nothing.
func TestAccNetwork_adoptsUnfinishedCreate(t *testing.T) {
	cases := []struct{ name, stopAt, extra string }{
		{"after the VPC", "compute.subnetworks.insert", ""},
		{"after the subnet", "compute.routers.insert", ""},
		{"at the first firewall rule", "compute.firewalls.insert", ""},
		// Without the SSH rule the internal rule is the only one, and its insert the very last call.
		{"at the last firewall rule", "compute.firewalls.insert", "  enable_iap_ssh = false\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := acctest.New(t)
			cfg := env.Config(basicConfig("hc-crash", "10.6.0.0/20", tc.extra))
			// Forgetting the resource without destroying it is what a crash leaves: parts in the
			// cloud, nothing in the state.
			forget := env.Config(`
removed {
  from = hypercompute_network.test
  lifecycle {
    destroy = false
  }
}
`)
			rules := 2
			if tc.extra != "" {
				rules = 1
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             env.CheckNothingLeft,
				Steps: []resource.TestStep{
					{
						PreConfig: func() {
							env.ApplyFaults(t, core.FaultSpec{FailOperations: []core.FailOperations{{Method: tc.stopAt, Count: 1}}})
						},
						Config:      cfg,
						ExpectError: acctest.ErrorMatching(`Unable to create network hc-crash`),
					},
					{Config: forget, Check: env.CheckPresent("compute.networks", "hc-crash")},
					{
						Config:           cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
						Check: resource.ComposeAggregateTestCheckFunc(
							env.CheckCount("compute.networks", 1),
							env.CheckCount("compute.subnetworks", 1),
							env.CheckCount("compute.routers", 1),
							env.CheckCount("compute.firewalls", rules),
							env.CheckCount("compute.globalAddresses", 1),
							env.CheckCount("servicenetworking.connections", 1),
						),
					},
				},
			})
		})
	}
}
