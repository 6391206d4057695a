package catalog

import "fmt"

// Image for machine types without GPUs (controllers, logins, CPU partitions).
const (
	generalImageFamily  = "debian-12"
	generalImageProject = "debian-cloud"
)

// g2Machines: L4 counts per type are from the task brief and
// hardware-and-field.md; vCPU, memory (4 GB per vCPU) and network bandwidth
// are public Compute docs values. L4 has 24 GB of memory.
func g2Machines() []MachineType {
	shapes := []struct{ cpus, gpus, gbps int }{
		{4, 1, 10}, {8, 1, 16}, {12, 1, 16}, {16, 1, 32},
		{24, 2, 32}, {32, 1, 32}, {48, 4, 50}, {96, 8, 100},
	}
	out := make([]MachineType, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, MachineType{
			Name: fmt.Sprintf("g2-standard-%d", s.cpus), Family: "g2", Profile: "g2",
			CPUs: s.cpus, MemoryMB: s.cpus * 4 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-l4", SlurmType: "l4", Count: s.gpus, MemoryGB: 24},
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: s.gbps,
			ImageFamily: imageAccelerator2204, ImageProject: acceleratorImageProject,
			Pins:              pinsL4,
			Placement:         PlacementRule{Mode: PlacementNone},
			OnHostMaintenance: MaintenanceTerminate, // VMs with GPUs cannot live-migrate
			SpotCapable:       true, FlexStartCapable: true,
			MaxPersistentDisks: defaultMaxPersistentDisks,
		})
	}
	return out
}

// generalPurposeMachines: vCPU and memory figures are public Compute docs
// values: standard shapes have 4 GB per vCPU, highmem shapes 8 GB per vCPU
// except n2-highmem-96 (768 GB) and n2-highmem-128 (864 GB), highcpu shapes
// 1 GB per vCPU (N2, E2) or 2 GB per vCPU (C3).
func generalPurposeMachines() []MachineType {
	var out []MachineType
	add := func(family, shape string, cpus, memGB int, placement PlacementMode) {
		out = append(out, MachineType{
			Name: fmt.Sprintf("%s-%s-%d", family, shape, cpus), Family: family, Profile: family,
			CPUs: cpus, MemoryMB: memGB * 1024, Arch: ArchX86,
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: cpuBandwidthGbps(family, cpus),
			ImageFamily: generalImageFamily, ImageProject: generalImageProject,
			Placement:          generalPlacement(placement),
			OnHostMaintenance:  MaintenanceMigrate,
			SpotCapable:        true,
			MaxPersistentDisks: defaultMaxPersistentDisks,
		})
	}
	for _, c := range []int{2, 4, 8, 16, 32, 48, 64, 80, 96, 128} {
		add("n2", "standard", c, 4*c, PlacementOptional)
		if c <= 96 {
			add("n2", "highcpu", c, c, PlacementOptional)
		}
		mem := 8 * c
		switch c {
		case 96:
			mem = 768
		case 128:
			mem = 864
		}
		add("n2", "highmem", c, mem, PlacementOptional)
	}
	for _, c := range []int{4, 8, 16, 30, 60} {
		add("c2", "standard", c, 4*c, PlacementOptional)
	}
	for _, c := range []int{4, 8, 22, 44, 88, 176} {
		add("c3", "standard", c, 4*c, PlacementOptional)
		add("c3", "highmem", c, 8*c, PlacementOptional)
		add("c3", "highcpu", c, 2*c, PlacementOptional)
	}
	// E2 does not support compact placement policies (public Compute docs).
	// E2 shared-core types (e2-micro, e2-small, e2-medium) are in machines_shared_core.go.
	for _, c := range []int{2, 4, 8, 16, 32} {
		add("e2", "standard", c, 4*c, PlacementNone)
		add("e2", "highcpu", c, c, PlacementNone)
		if c <= 16 {
			add("e2", "highmem", c, 8*c, PlacementNone)
		}
	}
	return out
}

func generalPlacement(mode PlacementMode) PlacementRule {
	if mode == PlacementNone {
		return PlacementRule{Mode: PlacementNone}
	}
	return PlacementRule{Mode: mode, MaxVMs: MaxCompactPlacementVMs}
}

// cpuBandwidthGbps approximates Compute's documented default egress
// bandwidth: 2 Gbps per vCPU capped at 32 Gbps for N2/C2 (10 Gbps floor for
// 2 vCPUs), E2 2 Gbps per vCPU up to 16, C3 23 Gbps up to 22 vCPUs then
// rising to 100 Gbps at 176 vCPUs. Only informational (machineTypes answers).
func cpuBandwidthGbps(family string, cpus int) int {
	switch family {
	case "e2":
		return min(16, 2*cpus)
	case "c3":
		switch {
		case cpus <= 22:
			return 23
		case cpus <= 44:
			return 32
		case cpus <= 88:
			return 62
		default:
			return 100
		}
	default:
		return min(32, max(10, 2*cpus))
	}
}
