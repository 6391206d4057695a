package catalog

import "fmt"

// seriesMachines holds the CPU machine series beyond machines_general.go's
// N2/C2/C3/E2: N1, N2D, C2D, C3D, C4, T2D, H3 and H4D. vCPU and memory figures are
// the public Compute docs values (general-purpose, compute-optimized and
// HPC machine family pages): N1 standard 3.75 GB and highmem 6.5 GB per
// vCPU; N2D, C2D and C3D standard 4 GB and highmem 8 GB per vCPU (N2D highcpu
// 1 GB); C4 standard 3.75 GB, highmem 7.75 GB and highcpu 2 GB per vCPU; H3 88 vCPUs with 352 GB;
// H4D 192 vCPUs with 720 GB (standard) or 1,488 GB (highmem).
func seriesMachines() []MachineType {
	var out []MachineType
	add := func(family, shape string, cpus, memMB int, placement PlacementMode, maintenance string, spot bool) {
		out = append(out, MachineType{
			Name: fmt.Sprintf("%s-%s-%d", family, shape, cpus), Family: family, Profile: family,
			CPUs: cpus, MemoryMB: memMB, Arch: ArchX86,
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: cpuBandwidthGbps(family, cpus),
			ImageFamily: generalImageFamily, ImageProject: generalImageProject,
			Placement:          generalPlacement(placement),
			OnHostMaintenance:  maintenance,
			SpotCapable:        spot,
			MaxPersistentDisks: defaultMaxPersistentDisks,
		})
	}
	const gb = 1024
	// N1 does not take compact placement policies (public Compute docs).
	// n1-highcpu has 0.9 GB per vCPU, which Compute rounds to whole MB (n1-highcpu-2: 1843).
	add("n1", "standard", 1, 3840, PlacementNone, MaintenanceMigrate, true)
	for _, c := range []int{2, 4, 8, 16, 32, 64, 96} {
		add("n1", "standard", c, 3840*c, PlacementNone, MaintenanceMigrate, true)
		add("n1", "highmem", c, 6656*c, PlacementNone, MaintenanceMigrate, true)
		add("n1", "highcpu", c, (9216*c+5)/10, PlacementNone, MaintenanceMigrate, true)
	}
	for _, c := range []int{2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224} {
		add("n2d", "standard", c, 4*gb*c, PlacementOptional, MaintenanceMigrate, true)
		add("n2d", "highcpu", c, gb*c, PlacementOptional, MaintenanceMigrate, true)
		if c <= 96 {
			add("n2d", "highmem", c, 8*gb*c, PlacementOptional, MaintenanceMigrate, true)
		}
	}
	for _, c := range []int{2, 4, 8, 16, 32, 56, 112} {
		add("c2d", "standard", c, 4*gb*c, PlacementOptional, MaintenanceMigrate, true)
		add("c2d", "highmem", c, 8*gb*c, PlacementOptional, MaintenanceMigrate, true)
	}
	for _, c := range []int{4, 8, 16, 30, 60, 90, 180, 360} {
		add("c3d", "standard", c, 4*gb*c, PlacementOptional, MaintenanceMigrate, true)
		add("c3d", "highmem", c, 8*gb*c, PlacementOptional, MaintenanceMigrate, true)
	}
	for _, c := range []int{2, 4, 8, 16, 24, 32, 48, 96, 144, 192, 288} {
		add("c4", "standard", c, 3840*c, PlacementOptional, MaintenanceMigrate, true)
		add("c4", "highmem", c, 7936*c, PlacementOptional, MaintenanceMigrate, true)
		add("c4", "highcpu", c, 2*gb*c, PlacementOptional, MaintenanceMigrate, true)
	}
	// T2D (AMD, one thread per core): standard shapes only, 4 GB per vCPU.
	for _, c := range []int{1, 2, 4, 8, 16, 32, 48, 60} {
		add("t2d", "standard", c, 4*gb*c, PlacementOptional, MaintenanceMigrate, true)
	}
	// The HPC series cannot live-migrate and are not offered as Spot VMs.
	add("h3", "standard", 88, 352*gb, PlacementOptional, MaintenanceTerminate, false)
	add("h4d", "standard", 192, 720*gb, PlacementOptional, MaintenanceTerminate, false)
	add("h4d", "highmem", 192, 1488*gb, PlacementOptional, MaintenanceTerminate, false)
	return out
}
