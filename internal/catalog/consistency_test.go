package catalog

import (
	"slices"
	"strings"
	"testing"
)

// TestCatalogConsistency checks the tables against each other, so a new
// machine type or zone cannot leave a dangling reference.
func TestCatalogConsistency(t *testing.T) {
	regions := Regions()
	for _, m := range Machines() {
		if !IsValidResourceName(m.Name) {
			t.Errorf("%s: not a valid Compute name", m.Name)
		}
		// Memory is whole quarter GB except where Compute states it in tenths (f1-micro 0.6 GB, g1-small
		// 1.7 GB, n1-highcpu 0.9 GB per vCPU), which machineTypes answers round to whole MB.
		odd := m.SharedCPU && m.Family == "n1" || strings.HasPrefix(m.Name, "n1-highcpu-")
		if m.CPUs <= 0 || m.MemoryMB <= 0 || m.MemoryMB%256 != 0 && !odd {
			t.Errorf("%s: cpus %d memory %d MB", m.Name, m.CPUs, m.MemoryMB)
		}
		if m.Arch != ArchX86 && m.Arch != ArchARM {
			t.Errorf("%s: arch %q", m.Name, m.Arch)
		}
		if m.Family == "" || m.Profile == "" || m.ImageFamily == "" || m.ImageProject == "" {
			t.Errorf("%s: family/profile/image missing", m.Name)
		}
		if m.OnHostMaintenance != MaintenanceMigrate && m.OnHostMaintenance != MaintenanceTerminate {
			t.Errorf("%s: onHostMaintenance %q", m.Name, m.OnHostMaintenance)
		}
		if m.MaxPersistentDisks <= 0 || m.NetworkBandwidthGbps <= 0 {
			t.Errorf("%s: disks %d bandwidth %d", m.Name, m.MaxPersistentDisks, m.NetworkBandwidthGbps)
		}
		spec, ok := NICStackInfo(m.NICStack)
		if !ok {
			t.Errorf("%s: NIC stack %q is not in the NIC stack table", m.Name, m.NICStack)
			continue
		}
		if m.HasGPU() {
			if m.OnHostMaintenance != MaintenanceTerminate {
				t.Errorf("%s: GPUs need TERMINATE", m.Name)
			}
			if m.GPU.Type == "" || m.GPU.SlurmType == "" || m.GPU.MemoryGB <= 0 {
				t.Errorf("%s: GPU %+v", m.Name, m.GPU)
			}
			if m.GPUQuotaMetric() == "" {
				t.Errorf("%s: no GPU quota metric for %s", m.Name, m.GPU.Type)
			}
			if m.Pins[PinDriver] == "" {
				t.Errorf("%s: driver not pinned", m.Name)
			}
			if acceleratorDescriptions[m.GPU.Type] == "" {
				t.Errorf("%s: no accelerator description for %s", m.Name, m.GPU.Type)
			}
			if len(ZonesOffering(m.Name)) == 0 {
				t.Errorf("%s: no zone offers it", m.Name)
			}
		} else if m.Pins != nil {
			t.Errorf("%s: pins without GPUs", m.Name)
		}
		if m.NICStack == NICNone {
			if m.GPUNICCount != 0 || m.MTU != defaultMTU {
				t.Errorf("%s: no NIC stack but %d GPU NICs, MTU %d", m.Name, m.GPUNICCount, m.MTU)
			}
			continue
		}
		// A GPU NIC stack implies GPUs, the stack's MTU, and a NIC count
		// the stack can wire.
		if !m.HasGPU() {
			t.Errorf("%s: NIC stack without GPUs", m.Name)
		}
		if m.MTU != spec.MTU {
			t.Errorf("%s: MTU %d, stack %s says %d", m.Name, m.MTU, m.NICStack, spec.MTU)
		}
		if spec.SubnetsPerVPC > 0 && m.GPUNICCount != spec.GPUVPCs*spec.NICsPerGPUVPC {
			t.Errorf("%s: %d GPU NICs, stack %s wires %d", m.Name, m.GPUNICCount, m.NICStack, spec.GPUVPCs*spec.NICsPerGPUVPC)
		}
		if spec.Subnets(m) <= 0 || spec.NCCLEnvScript == "" || m.NCCLBusBandwidthGBps <= 0 {
			t.Errorf("%s: stack %s incomplete", m.Name, m.NICStack)
		}
		if m.Pins[PinNCCLPlugin] == "" {
			t.Errorf("%s: NCCL plugin not pinned", m.Name)
		}
		if spec.NetworkProfileRequired && m.Placement.Mode != PlacementFromReservation {
			t.Errorf("%s: RDMA machines take placement from the reservation", m.Name)
		}
	}

	for _, s := range NICStacks() {
		spec, ok := NICStackInfo(s)
		if !ok || spec.Stack != s || spec.GPUVPCs <= 0 || spec.MTU < 1300 || spec.MTU > 8896 {
			t.Errorf("stack %s: %+v", s, spec)
		}
		if spec.NICType != NICTypeGVNIC && spec.NICType != NICTypeMRDMA {
			t.Errorf("stack %s: nic type %q", s, spec.NICType)
		}
		if (spec.NICType == NICTypeMRDMA) != spec.NetworkProfileRequired {
			t.Errorf("stack %s: RDMA NICs and the RDMA profile go together", s)
		}
	}

	gpuTypes := map[string]bool{}
	for _, a := range AcceleratorTypes() {
		gpuTypes[a.Name] = true
	}
	seen := map[string]bool{}
	for _, z := range Zones() {
		if seen[z.Name] {
			t.Errorf("zone %s listed twice", z.Name)
		}
		seen[z.Name] = true
		if !slices.Contains(regions, z.Region) {
			t.Errorf("zone %s: region %s not listed", z.Name, z.Region)
		}
		if r, ok := RegionOf(z.Name); !ok || r != z.Region || z.Name[:len(z.Region)] != z.Region {
			t.Errorf("zone %s: region %s", z.Name, z.Region)
		}
		for _, g := range z.GPUTypes {
			if !gpuTypes[g] {
				t.Errorf("zone %s: GPU type %s has no machine type", z.Name, g)
			}
		}
		if len(z.MachineTypeNames()) == 0 {
			t.Errorf("zone %s offers nothing", z.Name)
		}
		// Every zone must host a controller/login machine.
		if !z.Offers("e2-standard-4") && !z.Offers("n2-standard-4") {
			t.Errorf("zone %s offers no small general-purpose machine", z.Name)
		}
		rdma := false
		for _, n := range z.MachineTypeNames() {
			if m, _ := Machine(n); m.NICStack == NICRDMA {
				rdma = true
			}
		}
		if rdma != z.HasRDMAProfile {
			t.Errorf("zone %s: RDMA machines %v but vpc-roce profile %v", z.Name, rdma, z.HasRDMAProfile)
		}
	}
	for _, r := range regions {
		if len(ZonesInRegion(r)) == 0 {
			t.Errorf("region %s has no zones", r)
		}
	}

	for _, tr := range FilestoreTiers() {
		if err := ValidateFilestoreCapacity(tr.Name, tr.MinGB); err != nil {
			t.Errorf("%s min: %v", tr.Name, err)
		}
		if err := ValidateFilestoreCapacity(tr.Name, tr.MaxGB); err != nil {
			t.Errorf("%s max: %v", tr.Name, err)
		}
		for i := 1; i < len(tr.Steps); i++ {
			if tr.Steps[i].Min <= tr.Steps[i-1].Max {
				t.Errorf("%s: overlapping steps %v", tr.Name, tr.Steps)
			}
		}
	}
	for _, tr := range LustreTiers() {
		for i := 1; i < len(tr.Steps); i++ {
			if tr.Steps[i].Min <= tr.Steps[i-1].Max {
				t.Errorf("lustre %d: overlapping steps %v", tr.Throughput, tr.Steps)
			}
		}
	}
}
