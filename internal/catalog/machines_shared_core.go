package catalog

// sharedCoreMachines: the shared-core types real clients use in examples and tests (f1-micro, g1-small,
// e2-micro, e2-small, e2-medium). guestCpus, memoryMb, the described core share and the disk limits are those
// of recorded real machineTypes answers: f1-micro 1 vCPU and 614 MB, g1-small 1 vCPU and 1,740 MB, the E2
// ones 2 vCPUs bursting on 1/8, 1/4 and 1/2 of a physical core with 1, 2 and 4 GB; all but e2-medium attach at
// most 16 persistent disks of 3,072 GB in all. f1-micro and g1-small are N1 shared-core types, offered where
// N1 is. Shared-core VMs take no compact placement.
func sharedCoreMachines() []MachineType {
	shape := func(name, family string, cpus, memMB int, share string, maxDisks, maxDisksGB int) MachineType {
		return MachineType{
			Name: name, Family: family, Profile: family,
			CPUs: cpus, MemoryMB: memMB, Arch: ArchX86,
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: 1,
			ImageFamily: generalImageFamily, ImageProject: generalImageProject,
			Placement:          PlacementRule{Mode: PlacementNone},
			OnHostMaintenance:  MaintenanceMigrate,
			SpotCapable:        true,
			MaxPersistentDisks: maxDisks, MaxPersistentDisksSizeGB: maxDisksGB,
			SharedCPU: true, sharedCore: share,
		}
	}
	const small, smallGB = 16, 3072
	out := []MachineType{
		shape("f1-micro", "n1", 1, 614, "shared physical core", small, smallGB),
		shape("g1-small", "n1", 1, 1740, "shared physical core", small, smallGB),
		shape("e2-micro", "e2", 2, 1024, "1/8 shared physical core", small, smallGB),
		shape("e2-small", "e2", 2, 2048, "1/4 shared physical core", small, smallGB),
		shape("e2-medium", "e2", 2, 4096, "1/2 shared physical core", defaultMaxPersistentDisks, defaultMaxPersistentDisksSizeGB),
	}
	// Egress bandwidth: 1 Gbps for f1-micro/g1-small, 2 Gbps for the E2 shared-core types (public docs).
	for i := range out {
		if out[i].Family == "e2" {
			out[i].NetworkBandwidthGbps = 2
		}
	}
	return out
}
