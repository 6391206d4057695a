package filestore_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan time, names the attribute, and never reaches the API.
func TestAccFilestore_invalidInput(t *testing.T) {
	env := acctest.New(t)
	net := "  network = { name = \"hc-net\" }\n"
	cases := []struct {
		name, body, want string
	}{
		{"capacity below tier minimum", `  tier = "BASIC_SSD"
  share = { capacity_gb = 1024 }
` + net, `share\.capacity_gb 1024 is below the minimum 2560 for tier BASIC_SSD`},
		{"capacity off the step", `  tier = "ZONAL"
  share = { capacity_gb = 1100 }
` + net, `(?s)share\.capacity_gb 1100 is not a valid size for tier ZONAL.*nearest valid sizes are 1024 and 1280`},
		{"capacity above maximum", `  tier = "ENTERPRISE"
  location = "us-central1"
  share = { capacity_gb = 20480 }
` + net, `share\.capacity_gb 20480 is above the maximum 10240 for tier ENTERPRISE`},
		{"share name too long for Basic", `  tier = "BASIC_HDD"
  share = {
    name        = "ml_home_directory"
    capacity_gb = 1024
  }
` + net, `share\.name: file share name "ml_home_directory" is 17 characters long; tier BASIC_HDD allows at most 16`},
		{"share name with a hyphen", `  tier = "ZONAL"
  share = {
    name        = "home-1"
    capacity_gb = 1024
  }
` + net, `share\.name: file share name "home-1" is invalid`},
		{"zonal tier in a region", `  tier = "BASIC_HDD"
  location = "us-central1"
  share = { capacity_gb = 1024 }
` + net, `location: tier BASIC_HDD instances live in a zone`},
		{"regional tier in a zone", `  tier = "REGIONAL"
  location = "us-central1-a"
  share = { capacity_gb = 1024 }
` + net, `location: tier REGIONAL instances live in a region: use location "us-central1"`},
		{"NFSv4.1 on Basic", `  tier = "BASIC_HDD"
  protocol = "NFS_V4_1"
  share = { capacity_gb = 1024 }
` + net, `protocol: NFS_V4_1 is offered by the ZONAL, REGIONAL and ENTERPRISE tiers, not BASIC_HDD`},
		{"unknown protocol", `  tier = "ZONAL"
  protocol = "SMB"
  share = { capacity_gb = 1024 }
` + net, `protocol value must be one of`},
		{"unknown tier", `  tier = "PLATINUM"
  share = { capacity_gb = 1024 }
` + net, `tier value must be one of`},
		{"direct peering range of the wrong size", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  network = {
    name              = "hc-net"
    connect_mode      = "DIRECT_PEERING"
    reserved_ip_range = "10.200.0.0/24"
  }
`, `network\.reserved_ip_range: tier BASIC_HDD needs a /29 block for DIRECT_PEERING, got /24`},
		{"CIDR given as a PSA range", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  network = {
    name              = "hc-net"
    reserved_ip_range = "10.200.0.0/29"
  }
`, `network\.reserved_ip_range: with connect_mode PRIVATE_SERVICE_ACCESS this is the name of an allocated range`},
		{"malformed network", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  network = { name = "projects/p/networks/n" }
`, `network\.name: "projects/p/networks/n" is not a network name`},
		{"label key with uppercase", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  labels = { Team = "ml" }
` + net, `labels: label key "Team" is invalid: it contains uppercase letters`},
		{"the provider's own label", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  labels = { hypercompute-create = "pending" }
` + net, `labels: label key "hypercompute-create" is reserved`},
		{"reason without protection", `  tier = "BASIC_HDD"
  share = { capacity_gb = 1024 }
  deletion_protection        = false
  deletion_protection_reason = "home of the ml team"
` + net, `deletion_protection_reason: a reason can only be given while deletion_protection = true`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, env.Config(standalone(tc.body)), tc.want)
	}
	t.Run("invalid name", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: factories,
			Steps: []resource.TestStep{{
				Config: env.Config(`
resource "hypercompute_filestore" "test" {
  name    = "Home"
  tier    = "BASIC_HDD"
  share   = { capacity_gb = 1024 }
  network = { name = "hc-net" }
}
`),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`name "Home" is invalid: it contains uppercase letters`),
			}},
		})
	})
	env.RequireNoCalls(t, "invalid configurations")
}
