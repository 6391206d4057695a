package nodepartition_test

import (
	"os"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check, with the cluster it refers to.
func TestAccNodePartition_example(t *testing.T) {
	env := acctest.New(t)
	example, err := os.ReadFile("../../../examples/resources/hypercompute_node_partition/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	cluster := `
resource "hypercompute_filestore" "home" {
  name                = "ml-prod-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.cluster.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" "prod" {
  name    = "prod"
  network = hypercompute_network.cluster.name
  home    = { filestore = hypercompute_filestore.home.id }
  agent   = { url = "https://example.com/hypercompute-agent", sha256 = "` + strings.Repeat("ab", 32) + `" }
}
`
	// The plan checks the reservation the example consumes (shared from another project).
	if _, err := env.Emulator.SeedReservation("ml-capacity", acctest.Zone, &computepb.Reservation{
		Name: proto.String("a3mega-us-central1-a"), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count: proto.Int64(16), InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("a3-megagpu-8g")},
		},
	}); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(string(example) + cluster),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	// Planning reads the reservation and the region's quotas (the plan-time pre-flight), nothing else.
	c := env.Calls()
	if reads := c.Methods["compute.regions.get"].Count + c.Methods["compute.reservations.get"].Count; c.Total != reads || c.Methods["compute.reservations.get"].Count == 0 {
		t.Errorf("planning the example made %d API calls besides the pre-flight's reads (want 0), and %d reservation reads (want some): %v",
			c.Total-reads, c.Methods["compute.reservations.get"].Count, c.Methods)
	}
}
