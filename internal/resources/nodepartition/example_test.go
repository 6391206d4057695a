package nodepartition_test

import (
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// The documentation's example passes every plan-time check, with the cluster it refers to.
func TestAccNodePartition_example(t *testing.T) {
	env := acctest.New(t)
	// The plan checks the reservation the example consumes (shared from another project).
	if _, err := env.Emulator.SeedReservation("ml-capacity", acctest.Zone, &computepb.Reservation{
		Name: proto.String("a3mega-us-central1-a"), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count: proto.Int64(16), InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("a3-megagpu-8g")},
		},
	}); err != nil {
		t.Fatal(err)
	}
	// The calendar partition's future reservation, submitted for a week from the day after tomorrow.
	insertCalendarRequest(t, env, "a3mega-q1", "a3-megagpu-8g", 8, time.Now().Add(48*time.Hour).Truncate(time.Second), 14)
	env.ResetCalls()
	env.PlanConfig(t, factories, acctest.Example(t, "hypercompute_node_partition")+acctest.ExampleClusterConfig)
	// Planning reads the reservation, the future reservation and the region's quotas (the plan-time
	// pre-flight), and the controller once per node set that joins another's Slurm partition (its node
	// sets there), nothing else.
	c := env.Calls()
	if c.Methods["compute.instances.get"].Count == 0 {
		t.Error("planning the node sets that join a3mega did not read the controller")
	}
	if reads := c.Methods["compute.regions.get"].Count + c.Methods["compute.reservations.get"].Count + c.Methods["compute.instances.get"].Count +
		c.Methods["compute.futureReservations.get"].Count; c.Total != reads || c.Methods["compute.reservations.get"].Count == 0 ||
		c.Methods["compute.futureReservations.get"].Count == 0 {
		t.Errorf("planning the example made %d API calls besides the pre-flight's reads (want 0), and %d reservation reads (want some): %v",
			c.Total-reads, c.Methods["compute.reservations.get"].Count, c.Methods)
	}
}
