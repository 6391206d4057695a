package catalog

import "fmt"

// Drivers for the GPU series without a GPUDirect NIC stack: A100s run on the
// 550 branch; RTX PRO 6000 (Blackwell) needs the 570 branch.
var (
	pinsA100 = map[string]string{PinDriver: "550.90.07"}
	pinsG4   = map[string]string{PinDriver: "570.124.06"}
)

// a2Machines: A2 Standard (A100 40GB, accelerator nvidia-tesla-a100) and A2
// Ultra (A100 80GB, nvidia-a100-80gb). vCPU, memory, GPU counts, bundled
// local SSD (A2 Ultra) and network bandwidth are the public Compute docs
// values of the accelerator-optimized machine family page. A2 has no
// GPUDirect NIC stack: multi-node traffic runs over the VPC NIC.
func a2Machines() []MachineType {
	type shape struct {
		name           string
		cpus, memGB    int
		gpus, gbps     int
		localSSDGB     int
		gpuType, slurm string
		gpuMemGB       int
	}
	shapes := []shape{
		{"a2-highgpu-1g", 12, 85, 1, 24, 0, "nvidia-tesla-a100", "a100", 40},
		{"a2-highgpu-2g", 24, 170, 2, 32, 0, "nvidia-tesla-a100", "a100", 40},
		{"a2-highgpu-4g", 48, 340, 4, 50, 0, "nvidia-tesla-a100", "a100", 40},
		{"a2-highgpu-8g", 96, 680, 8, 100, 0, "nvidia-tesla-a100", "a100", 40},
		{"a2-megagpu-16g", 96, 1360, 16, 100, 0, "nvidia-tesla-a100", "a100", 40},
		{"a2-ultragpu-1g", 12, 170, 1, 24, 375, "nvidia-a100-80gb", "a100-80gb", 80},
		{"a2-ultragpu-2g", 24, 340, 2, 32, 750, "nvidia-a100-80gb", "a100-80gb", 80},
		{"a2-ultragpu-4g", 48, 680, 4, 50, 1500, "nvidia-a100-80gb", "a100-80gb", 80},
		{"a2-ultragpu-8g", 96, 1360, 8, 100, 3000, "nvidia-a100-80gb", "a100-80gb", 80},
	}
	out := make([]MachineType, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, MachineType{
			Name: s.name, Family: "a2", Profile: "a2",
			CPUs: s.cpus, MemoryMB: s.memGB * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: s.gpuType, SlurmType: s.slurm, Count: s.gpus, MemoryGB: s.gpuMemGB},
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: s.gbps,
			LocalSSDGB:  s.localSSDGB,
			ImageFamily: imageAccelerator2204, ImageProject: acceleratorImageProject,
			Pins:              pinsA100,
			Placement:         PlacementRule{Mode: PlacementOptional, MaxVMs: MaxCompactPlacementVMs},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			MaxPersistentDisks: defaultMaxPersistentDisks,
		})
	}
	return out
}

// g4Machines: G4 with NVIDIA RTX PRO 6000 Blackwell Server Edition GPUs (96
// GB each, accelerator nvidia-rtx-pro-6000). vCPU, memory (3.75 GB per
// vCPU), GPU counts and network bandwidth are the public Compute docs values.
func g4Machines() []MachineType {
	shapes := []struct{ cpus, memGB, gpus, gbps int }{
		{48, 180, 1, 50}, {96, 360, 2, 100}, {192, 720, 4, 200}, {384, 1440, 8, 400},
	}
	out := make([]MachineType, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, MachineType{
			Name: fmt.Sprintf("g4-standard-%d", s.cpus), Family: "g4", Profile: "g4",
			CPUs: s.cpus, MemoryMB: s.memGB * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-rtx-pro-6000", SlurmType: "rtxpro6000", Count: s.gpus, MemoryGB: 96},
			NICStack: NICNone, MTU: defaultMTU, NetworkBandwidthGbps: s.gbps,
			ImageFamily: imageAccelerator2404, ImageProject: acceleratorImageProject,
			Pins:              pinsG4,
			Placement:         PlacementRule{Mode: PlacementNone},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			MaxPersistentDisks: defaultMaxPersistentDisks,
		})
	}
	return out
}
