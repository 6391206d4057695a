package acctest

import (
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// The cluster the documentation's examples of resources inside a cluster refer to, for their
// example tests: the examples name hypercompute_training_cluster.prod and its partitions without
// defining them.
const (
	// ExampleNetworkConfig is hypercompute_network.cluster.
	ExampleNetworkConfig = `
resource "hypercompute_network" "cluster" {
  name   = "ml-prod"
  subnet = { cidr = "10.0.0.0/20" }
}
`
	// ExampleA3MegaPartitionConfig is hypercompute_node_partition.a3mega: two A3 Mega nodes from
	// the reservation a3mega.
	ExampleA3MegaPartitionConfig = `
resource "hypercompute_node_partition" "a3mega" {
  cluster           = hypercompute_training_cluster.prod.id
  name              = "a3mega"
  machine_type      = "a3-megagpu-8g"
  static_node_count = 2
  provisioning      = { model = "reservation", reservation = "a3mega" }
}
`
)

// ExampleClusterConfig is hypercompute_filestore.home and hypercompute_training_cluster.prod on
// ExampleNetworkConfig's network (which it leaves out: some examples define it themselves).
var ExampleClusterConfig = homeAndCluster("cluster", "ml-prod-home", "prod", "prod", "https://example.com/hypercompute-agent", strings.Repeat("ab", 32), "")

// SeedExampleReservation makes the reservation ExampleA3MegaPartitionConfig consumes (a3mega:
// 16 A3 Mega VMs in this project's zone), which the plan-time pre-flight reads.
func (e *Env) SeedExampleReservation(t *testing.T) {
	t.Helper()
	if _, err := e.Emulator.SeedReservation(Project, Zone, &computepb.Reservation{
		Name: proto.String("a3mega"), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count: proto.Int64(16), InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("a3-megagpu-8g")},
		},
	}); err != nil {
		t.Fatal(err)
	}
}
