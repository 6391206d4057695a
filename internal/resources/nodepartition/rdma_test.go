package nodepartition_test

import (
	"fmt"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// An A4 partition on the RDMA stack: every node gets the primary gVNIC, the host gVNIC and one
// MRDMA NIC per subnet of the one RDMA VPC, in order — the layout Google documents for A3 Ultra
// and A4, which puts eight NICs on the same network.
func TestAccNodePartition_a4RDMA(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcr", clusterOpts{gpuStack: "rdma"})
	if _, err := env.Emulator.SeedReservation(acctest.Project, "us-central1-b", &computepb.Reservation{
		Name: proto.String("a4res"), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count: proto.Int64(2), InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("a4-highgpu-8g")},
		},
	}); err != nil {
		t.Fatal(err)
	}
	extra := `  zone = "us-central1-b"
  provisioning = {
    model       = "reservation"
    reservation = "a4res"
  }
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "a4", "hcr-a4"),
		Steps: []resource.TestStep{{
			Config: env.Config(partitionConfig(tc.id, "a4", "a4-highgpu-8g", 2, 0, extra)),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					inst, ok := instancesSvc(env).Instance(instances.InstanceKey(acctest.Project, "us-central1-b", "hcr-a4-1"))
					if !ok {
						return fmt.Errorf("hcr-a4-1 does not exist")
					}
					nics := inst.GetNetworkInterfaces()
					if len(nics) != 10 {
						return fmt.Errorf("a4-highgpu-8g node has %d NICs, want 10 (2 gVNIC + 8 MRDMA)", len(nics))
					}
					if lastPart(nics[1].GetNetwork()) != "hcr-net-gpu-0" || nics[1].GetNicType() != "GVNIC" {
						return fmt.Errorf("nic1 %s %s, want the host gVNIC on hcr-net-gpu-0", nics[1].GetNetwork(), nics[1].GetNicType())
					}
					for i := 2; i < 10; i++ {
						n := nics[i]
						if n.GetNicType() != "MRDMA" || lastPart(n.GetNetwork()) != "hcr-net-rdma" || lastPart(n.GetSubnetwork()) != fmt.Sprintf("hcr-net-rdma-sub-%d", i-2) {
							return fmt.Errorf("nic%d: %s on %s/%s, want MRDMA on hcr-net-rdma/hcr-net-rdma-sub-%d", i, n.GetNicType(), n.GetNetwork(), n.GetSubnetwork(), i-2)
						}
					}
					return nil
				},
			),
		}},
	})
}
