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

func seedReservation(t *testing.T, env *acctest.Env, name, machine string, count int64) {
	t.Helper()
	_, err := env.Emulator.SeedReservation(acctest.Project, acctest.Zone, &computepb.Reservation{
		Name: proto.String(name), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count: proto.Int64(count), InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(machine)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An A3 Mega partition on a reservation: every node gets the primary NIC plus the eight TCPXO GPU
// NICs of the network's GPU network set, in order, host maintenance TERMINATE and the reservation
// affinity; the pre-flight refuses more static nodes than the reservation has free.
func TestAccNodePartition_a3MegaReservation(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcg", clusterOpts{gpuStack: "tcpxo"})
	seedReservation(t, env, "mega", "a3-megagpu-8g", 4)
	reserved := `  provisioning = {
    model       = "reservation"
    reservation = "mega"
  }
  slurm = { exclusive = true }
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "a3mega", "hcg-a3mega"),
		Steps: []resource.TestStep{
			{
				Config: env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 3, 8, reserved)),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcg-a3mega", "hcg-a3mega-0", "hcg-a3mega-1", "hcg-a3mega-2"),
					func(*terraform.State) error {
						inst, ok := instancesSvc(env).Instance(instances.InstanceKey(acctest.Project, acctest.Zone, "hcg-a3mega-1"))
						if !ok {
							return fmt.Errorf("hcg-a3mega-1 does not exist")
						}
						nics := inst.GetNetworkInterfaces()
						if len(nics) != 9 {
							return fmt.Errorf("a3-megagpu-8g node has %d NICs, want 9", len(nics))
						}
						for i, n := range nics {
							if n.GetNicType() != "GVNIC" {
								return fmt.Errorf("nic%d type %q, want GVNIC", i, n.GetNicType())
							}
							if i > 0 && lastPart(n.GetNetwork()) != fmt.Sprintf("hcg-net-gpu-%d", i-1) {
								return fmt.Errorf("nic%d on %s, want hcg-net-gpu-%d", i, n.GetNetwork(), i-1)
							}
						}
						// Shielded like every node, without Secure Boot (unsigned GPU driver modules).
						if sh := inst.GetShieldedInstanceConfig(); sh.GetEnableSecureBoot() || !sh.GetEnableVtpm() || !sh.GetEnableIntegrityMonitoring() {
							return fmt.Errorf("GPU node shielded config %v, want vTPM and integrity monitoring without Secure Boot", sh)
						}
						sc := inst.GetScheduling()
						if sc.GetOnHostMaintenance() != "TERMINATE" || sc.GetProvisioningModel() != "STANDARD" {
							return fmt.Errorf("scheduling %v", sc)
						}
						if ra := inst.GetReservationAffinity(); ra.GetConsumeReservationType() != "SPECIFIC_RESERVATION" || ra.GetValues()[0] != "mega" {
							return fmt.Errorf("reservation affinity %v", ra)
						}
						if got := inst.GetResourceStatus().GetReservationConsumptionInfo().GetConsumedReservation(); lastPart(got) != "mega" {
							return fmt.Errorf("consumed reservation %q", got)
						}
						return nil
					},
				),
			},
			{
				PreConfig:   env.ResetCalls,
				Config:      env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 6, 5, reserved)),
				ExpectError: acctest.ErrorMatching(`provisioning\.reservation: reservation mega has 1 of its 4 a3-megagpu-8g VMs free \(3 in use\), and this apply creates 3 static nodes`),
			},
			{
				PreConfig: func() { checkNoMutations(t, env) },
				Config:    env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 4, 7, reserved)),
				Check:     checkVMs(env, "hcg-a3mega", "hcg-a3mega-0", "hcg-a3mega-1", "hcg-a3mega-2", "hcg-a3mega-3"),
			},
		},
	})
}

// A GPU partition on a network without the GPU network set its machines need is refused before
// anything is created, saying what to add to the network. (The network is only known at apply:
// the partition names the cluster, whose controller names the network.)
func TestAccNodePartition_missingGPUNetworks(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcn", clusterOpts{gpuStack: "tcpx"})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				PreConfig: env.ResetCalls,
				Config:    env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 2, 0, "")),
				ExpectError: acctest.ErrorMatching(`a3-megagpu-8g needs the tcpxo GPU network set \(8 GPU NICs\), but network hcn-net has the tcpx set \(4 GPU VPCs\): ` +
					`add gpu_networks = \{ stack = "tcpxo" \} to the hypercompute_network "hcn-net"`),
			},
			{
				// The reservation exists, so the plan-time pre-flight passes and the apply finds the
				// network wanting.
				PreConfig: func() {
					checkNoMutations(t, env)
					seedReservation(t, env, "elsewhere", "a3-megagpu-8g", 4)
				},
				Config: env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 2, 0, `  provisioning = {
    model       = "reservation"
    reservation = "elsewhere"
  }`)),
				ExpectError: acctest.ErrorMatching(`needs the tcpxo GPU network set`),
			},
		},
	})
}

// A reservation that does not exist, or holds another machine type, is refused before anything
// is created.
func TestAccNodePartition_reservationPreflight(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcv", clusterOpts{})
	seedReservation(t, env, "n2res", "n2-standard-8", 10)
	cfg := func(res string) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 0, fmt.Sprintf(`  provisioning = {
    model       = "reservation"
    reservation = %q
  }`, res)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				PreConfig:   env.ResetCalls,
				Config:      cfg("missing"),
				ExpectError: acctest.ErrorMatching(`provisioning\.reservation: reservation missing does not exist in project hc-acc-test, zone us-central1-a`),
			},
			{
				Config:      cfg("projects/hc-acc-test/reservations/n2res"),
				ExpectError: acctest.ErrorMatching(`provisioning\.reservation: reservation n2res holds n2-standard-8 VMs, but the partition's machine_type is n2-standard-4`),
			},
			{
				PreConfig:   func() { checkNoMutations(t, env) },
				Config:      cfg("n2res"),
				ExpectError: acctest.ErrorMatching(`holds n2-standard-8 VMs`),
			},
		},
	})
}

func lastPart(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[i+1:]
		}
	}
	return s
}

// A reservation of the right name in another zone is reported as such.
func TestAccNodePartition_reservationInAnotherZone(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcz", clusterOpts{})
	_, err := env.Emulator.SeedReservation(acctest.Project, "us-central1-b", &computepb.Reservation{
		Name: proto.String("zoned"), SpecificReservationRequired: proto.Bool(true),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{Count: proto.Int64(4),
			InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("n2-standard-4")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 0, `  provisioning = {
    model       = "reservation"
    reservation = "zoned"
  }`)),
			ExpectError: acctest.ErrorMatching(`provisioning\.reservation: reservation zoned of project hc-acc-test is in us-central1-b, not in the partition's zone us-central1-a`),
		}},
	})
}
