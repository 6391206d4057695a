package filestore_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// An instance in PRIVATE_SERVICE_ACCESS mode made outside Terraform without a reserved range holds
// the CIDR block Filestore allocated in reservedIpRange. Importing it records that CIDR, and a
// configuration that leaves reserved_ip_range unset then plans no change; a CIDR written in the
// configuration is still refused at plan.
func TestAccFilestore_importPSAWithoutRange(t *testing.T) {
	env := acctest.New(t)
	net := networkConfig("hc-fsi")
	cfg := env.Config(net + instanceConfig("hc-home", "BASIC_HDD", 1024, unprotected))
	createDirectly := func() {
		c := env.Clients()
		ctx := context.Background()
		op, err := c.Filestore.CreateInstance(ctx, &filestorepb.CreateInstanceRequest{
			Parent: "projects/" + acctest.Project + "/locations/" + acctest.Zone, InstanceId: "hc-home",
			Instance: &filestorepb.Instance{
				Tier:       filestorepb.Instance_BASIC_HDD,
				FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}},
				Networks: []*filestorepb.NetworkConfig{{
					Network: "projects/" + acctest.Project + "/global/networks/hc-fsi", Modes: []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4},
					ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS, // no ReservedIpRange: Filestore picks a block
				}},
			},
		})
		if err == nil {
			_, err = c.WaitFilestoreInstance(ctx, op.Name())
		}
		if err != nil {
			t.Fatalf("creating the instance outside Terraform: %v", err)
		}
	}
	serverCIDR := func(s *terraform.State) error {
		got := s.RootModule().Resources[addr].Primary.Attributes["network.reserved_ip_range"]
		if _, err := netip.ParsePrefix(got); err != nil {
			return fmt.Errorf("network.reserved_ip_range = %q; want the CIDR block Filestore allocated", got)
		}
		i, err := env.FilestoreInstance("hc-home")
		if err != nil {
			return err
		}
		if want := i.GetNetworks()[0].GetReservedIpRange(); got != want {
			return fmt.Errorf("network.reserved_ip_range = %q; the instance holds %q", got, want)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckStorageNothingLeft,
		Steps: []resource.TestStep{
			{Config: env.Config(net)},
			{
				PreConfig:          createDirectly,
				Config:             cfg,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      fullName,
				ImportStatePersist: true,
			},
			{
				// The imported state plans no change: the server's CIDR stands for the unset range.
				Config:   cfg,
				PlanOnly: true,
				Check:    serverCIDR,
			},
			{
				Config:                  cfg,
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           fullName,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// A CIDR written in the configuration is still refused in PSA mode, before any change.
				Config: env.Config(net + `
resource "hypercompute_filestore" "test" {
  name  = "hc-home"
  tier  = "BASIC_HDD"
  share = {
    capacity_gb = 1024
  }
  network = {
    name              = hypercompute_network.net.name
    reserved_ip_range = "10.1.0.0/29"
  }
  deletion_protection = false
}
`),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`(?s)network.reserved_ip_range: .*not a CIDR like "10.1.0.0/29"`),
			},
			{
				// An applied refresh changes nothing either, and the state keeps the CIDR.
				Config: cfg,
				Check:  serverCIDR,
			},
		},
	})
}
