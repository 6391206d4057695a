package catalog

// Images for GPU machine types: Google's accelerator images from the
// ubuntu-os-accelerator-images project (public Compute docs); the RDMA
// machines need the Ubuntu 24.04 image with the gIB NCCL plugin
// (hardware-and-field.md), A4X its arm64 build (64k pages).
const (
	acceleratorImageProject = "ubuntu-os-accelerator-images"
	imageAccelerator2204    = "ubuntu-accelerator-2204-amd64-with-nvidia-550"
	imageAccelerator2404    = "ubuntu-accelerator-2404-amd64-with-nvidia-570"
	imageAccelerator2404ARM = "ubuntu-accelerator-2404-arm64-with-nvidia-570"
)

// Pinned software sets, one per GPU NIC stack. The container images and the
// driver branch are the ones Google's public GPUDirect guides name; they are
// listed together because a mismatch breaks GPU networking.
var (
	pinsTCPX = map[string]string{
		PinDriver:     "550.90.07",
		PinNCCLPlugin: "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9",
		PinRxDM:       "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12",
	}
	pinsTCPXO = map[string]string{
		PinDriver:     "550.90.07",
		PinNCCLPlugin: "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.8-1",
		PinRxDM:       "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.14",
	}
	// RDMA machines have no receive-data-path manager: the gIB plugin talks
	// to the CX-7 NICs directly.
	pinsGIB = map[string]string{
		PinDriver:     "570.124.06",
		PinNCCLPlugin: "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.0.6",
	}
	pinsGIBARM = map[string]string{
		PinDriver:     "570.124.06",
		PinNCCLPlugin: "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-arm64:v1.0.6",
	}
	pinsL4 = map[string]string{
		PinDriver: "550.90.07",
	}
)

// Compute's default limit on persistent disks per VM (public Compute docs).
const defaultMaxPersistentDisks = 128

// Default VPC MTU when a machine type has no GPU network (gcp-apis.md).
const defaultMTU = 1460

// acceleratorMachines holds the A3/A4 family. GPU, NIC, MTU, bandwidth and
// placement figures are from hardware-and-field.md; vCPU and memory figures,
// GPU memory of B200/GB200 and local SSD sizes are public Compute docs values.
func acceleratorMachines() []MachineType {
	return []MachineType{
		{
			Name: "a3-highgpu-8g", Family: "a3", Profile: "a3-high",
			CPUs: 208, MemoryMB: 1872 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-h100-80gb", SlurmType: "h100", Count: 8, MemoryGB: 80},
			NICStack: NICTCPX, GPUNICCount: 4, MTU: 8244, NetworkBandwidthGbps: 1000,
			LocalSSDGB:  16 * 375,
			ImageFamily: imageAccelerator2204, ImageProject: acceleratorImageProject,
			Pins:              pinsTCPX,
			Placement:         PlacementRule{Mode: PlacementOptional, MaxVMs: MaxCompactPlacementVMs},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			NCCLBusBandwidthGBps: 60,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
		{
			// A3 Edge: the A3 High hardware with 800 Gbps of GPUDirect-TCPX
			// (public Compute docs), offered in fewer zones.
			Name: "a3-edgegpu-8g", Family: "a3", Profile: "a3-edge",
			CPUs: 208, MemoryMB: 1872 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-h100-80gb", SlurmType: "h100", Count: 8, MemoryGB: 80},
			NICStack: NICTCPX, GPUNICCount: 4, MTU: 8244, NetworkBandwidthGbps: 800,
			LocalSSDGB:  16 * 375,
			ImageFamily: imageAccelerator2204, ImageProject: acceleratorImageProject,
			Pins:              pinsTCPX,
			Placement:         PlacementRule{Mode: PlacementOptional, MaxVMs: MaxCompactPlacementVMs},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			NCCLBusBandwidthGBps: 60,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
		{
			Name: "a3-megagpu-8g", Family: "a3", Profile: "a3-mega",
			CPUs: 208, MemoryMB: 1872 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-h100-mega-80gb", SlurmType: "h100", Count: 8, MemoryGB: 80},
			NICStack: NICTCPXO, GPUNICCount: 8, MTU: 8244, NetworkBandwidthGbps: 1800,
			LocalSSDGB:  16 * 375,
			ImageFamily: imageAccelerator2204, ImageProject: acceleratorImageProject,
			Pins: pinsTCPXO,
			Placement: PlacementRule{
				Mode: PlacementOptional, ReservationRecommended: true, MaxVMs: MaxCompactPlacementVMs,
			},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			NCCLBusBandwidthGBps: 150,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
		{
			Name: "a3-ultragpu-8g", Family: "a3", Profile: "a3-ultra",
			CPUs: 224, MemoryMB: 2952 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-h200-141gb", SlurmType: "h200", Count: 8, MemoryGB: 141},
			NICStack: NICRDMA, GPUNICCount: 8, MTU: 8896, NetworkBandwidthGbps: 3600,
			LocalSSDGB:  32 * 375,
			ImageFamily: imageAccelerator2404, ImageProject: acceleratorImageProject,
			Pins: pinsGIB,
			Placement: PlacementRule{
				Mode: PlacementFromReservation, ReservationRecommended: true, MaxVMs: MaxCompactPlacementVMs,
			},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			NCCLBusBandwidthGBps: 250,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
		{
			Name: "a4-highgpu-8g", Family: "a4", Profile: "a4",
			CPUs: 224, MemoryMB: 3968 * 1024, Arch: ArchX86,
			GPU:      &GPU{Type: "nvidia-b200", SlurmType: "b200", Count: 8, MemoryGB: 180},
			NICStack: NICRDMA, GPUNICCount: 8, MTU: 8896, NetworkBandwidthGbps: 3600,
			LocalSSDGB:  32 * 375,
			ImageFamily: imageAccelerator2404, ImageProject: acceleratorImageProject,
			Pins: pinsGIB,
			Placement: PlacementRule{
				Mode: PlacementFromReservation, ReservationRecommended: true, MaxVMs: MaxCompactPlacementVMs,
			},
			OnHostMaintenance: MaintenanceTerminate,
			SpotCapable:       true, FlexStartCapable: true,
			NCCLBusBandwidthGBps: 250,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
		{
			// The facts file describes A4X's GPUs as B200s in GB200
			// superchips; Compute names the accelerator nvidia-gb200 and
			// counts it against NVIDIA_GB200_GPUS (public Compute docs).
			Name: "a4x-highgpu-4g", Family: "a4x", Profile: "a4x",
			CPUs: 140, MemoryMB: 884 * 1024, Arch: ArchARM,
			GPU:      &GPU{Type: "nvidia-gb200", SlurmType: "gb200", Count: 4, MemoryGB: 186},
			NICStack: NICRDMA, GPUNICCount: 4, MTU: 8896, NetworkBandwidthGbps: 2000,
			LocalSSDGB:  32 * 375,
			ImageFamily: imageAccelerator2404ARM, ImageProject: acceleratorImageProject,
			Pins: pinsGIBARM,
			Placement: PlacementRule{
				Mode: PlacementFromReservation, ReservationRecommended: true, ReservationBound: true,
				AcceleratorTopology: "1x72",
				// One NVL72 domain is 18 VMs of 4 GPUs; the policy holds the
				// domain, larger clusters use several sub-blocks.
				MaxVMs: 18,
			},
			OnHostMaintenance:    MaintenanceTerminate,
			NCCLBusBandwidthGBps: 160,
			MaxPersistentDisks:   defaultMaxPersistentDisks,
		},
	}
}
