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

func tcpxoConfig(prefix string) string {
	return basicConfig("hc-size", "10.0.0.0/20", fmt.Sprintf("  gpu_networks = {\n    stack = \"tcpxo\"\n%s  }\n", prefix))
}

// gpuSubnets reads the eight TCPXO subnets: name → (id, range).
func gpuSubnets(env *acctest.Env) (map[string]*computepb.Subnetwork, error) {
	out := map[string]*computepb.Subnetwork{}
	for i := range 8 {
		name := fmt.Sprintf("hc-size-gpu-%d-subnet", i)
		sn, err := env.Clients().Subnetworks.Get(context.Background(), &computepb.GetSubnetworkRequest{Project: acctest.Project, Region: acctest.Region, Subnetwork: name})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		out[name] = sn
	}
	return out, nil
}

// GPU subnets are sized by gpu_networks.subnet_prefix_length: /24 by default, each at the start of
// its /19 slot of 192.168.0.0/16. Growing them to /21 expands every subnet in place (the same
// subnets, ids unchanged, no delete or insert), and asking for /24 again is refused at plan, since
// Compute cannot shrink a subnet; so is a size below one subnet widened by hand.
func TestAccNetwork_gpuSubnetsGrowInPlace(t *testing.T) {
	env := acctest.New(t)
	ids := map[string]uint64{}
	ranges := func(prefix int, record bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			subs, err := gpuSubnets(env)
			if err != nil {
				return err
			}
			for i := range 8 {
				name := fmt.Sprintf("hc-size-gpu-%d-subnet", i)
				if want := fmt.Sprintf("192.168.%d.0/%d", 32*i, prefix); subs[name].GetIpCidrRange() != want {
					return fmt.Errorf("%s is %s, want %s", name, subs[name].GetIpCidrRange(), want)
				}
				if record {
					ids[name] = subs[name].GetId()
				} else if subs[name].GetId() != ids[name] {
					return fmt.Errorf("%s was recreated: id %d, was %d", name, subs[name].GetId(), ids[name])
				}
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             env.CheckNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.Config(tcpxoConfig("")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("subnet_prefix_length"), knownvalue.Int64Exact(24)),
				},
				Check: ranges(24, true),
			},
			{
				PreConfig: env.ResetCalls,
				Config:    env.Config(tcpxoConfig("    subnet_prefix_length = 21\n")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_networks").AtMapKey("subnet_prefix_length"), knownvalue.Int64Exact(21)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					ranges(21, false),
					func(*terraform.State) error {
						if n := env.CallCount("compute.subnetworks.expandIpCidrRange"); n != 8 {
							return fmt.Errorf("growing made %d expandIpCidrRange calls, want 8", n)
						}
						if n := env.CallCount("compute.subnetworks.delete") + env.CallCount("compute.subnetworks.insert"); n != 0 {
							return fmt.Errorf("growing deleted or inserted %d subnets", n)
						}
						return nil
					},
				),
			},
			{
				// The refresh reads the /21 subnets; a plan for /24 would shrink them.
				Config:      env.Config(tcpxoConfig("    subnet_prefix_length = 24\n")),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`gpu_networks\.subnet_prefix_length: the GPU subnets are /21 \(2044 addresses each\) and Compute can only expand`),
			},
			{
				// A subnet widened by hand reads back as the larger size, so the configuration's
				// /21 is a shrink too: refused at plan, never recreated.
				PreConfig: func() {
					op, err := env.Clients().Subnetworks.ExpandIpCidrRange(context.Background(), &computepb.ExpandIpCidrRangeSubnetworkRequest{
						Project: acctest.Project, Region: acctest.Region, Subnetwork: "hc-size-gpu-3-subnet",
						SubnetworksExpandIpCidrRangeRequestResource: &computepb.SubnetworksExpandIpCidrRangeRequest{IpCidrRange: ptr("192.168.96.0/20")},
					})
					if err == nil {
						err = op.Wait(context.Background())
					}
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:      env.Config(tcpxoConfig("    subnet_prefix_length = 21\n")),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`gpu_networks\.subnet_prefix_length: the GPU subnets are /20`),
			},
			{
				// Growing past the widest one brings every subnet to the same size, in place.
				Config: env.Config(tcpxoConfig("    subnet_prefix_length = 19\n")),
				Check: func(*terraform.State) error {
					subs, err := gpuSubnets(env)
					if err != nil {
						return err
					}
					for name, sn := range subs {
						if sn.GetId() != ids[name] || sn.GetIpCidrRange()[len(sn.GetIpCidrRange())-3:] != "/19" {
							return fmt.Errorf("%s: id %d (was %d), range %s; want the same subnet at /19", name, sn.GetId(), ids[name], sn.GetIpCidrRange())
						}
					}
					return nil
				},
			},
		},
	})
}

func ptr[T any](v T) *T { return &v }
