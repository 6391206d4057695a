package catalog

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestAcceleratorMachines(t *testing.T) {
	tests := []struct {
		name                  string
		cpus, memGB           int
		arch, gpuType, slurm  string
		gpus, gpuNICs, mtu    int
		stack                 NICStack
		placement             PlacementMode
		reservationBound      bool
		topology              string
		wantImageContains     string
		wantRxDM, wantHasSpot bool
	}{
		{"a3-highgpu-8g", 208, 1872, ArchX86, "nvidia-h100-80gb", "h100", 8, 4, 8244, NICTCPX, PlacementOptional, false, "", "amd64", true, true},
		{"a3-megagpu-8g", 208, 1872, ArchX86, "nvidia-h100-mega-80gb", "h100", 8, 8, 8244, NICTCPXO, PlacementOptional, false, "", "amd64", true, true},
		{"a3-ultragpu-8g", 224, 2952, ArchX86, "nvidia-h200-141gb", "h200", 8, 8, 8896, NICRDMA, PlacementFromReservation, false, "", "2404-amd64", false, true},
		{"a4-highgpu-8g", 224, 3968, ArchX86, "nvidia-b200", "b200", 8, 8, 8896, NICRDMA, PlacementFromReservation, false, "", "2404-amd64", false, true},
		{"a4x-highgpu-4g", 140, 884, ArchARM, "nvidia-gb200", "gb200", 4, 4, 8896, NICRDMA, PlacementFromReservation, true, "1x72", "arm64", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := Machine(tc.name)
			if !ok {
				t.Fatalf("Machine(%q) not found", tc.name)
			}
			if m.CPUs != tc.cpus || m.MemoryMB != tc.memGB*1024 || m.Arch != tc.arch {
				t.Errorf("cpus/mem/arch = %d/%d/%s, want %d/%d/%s", m.CPUs, m.MemoryMB, m.Arch, tc.cpus, tc.memGB*1024, tc.arch)
			}
			if !m.HasGPU() || m.GPU.Type != tc.gpuType || m.GPU.SlurmType != tc.slurm || m.GPU.Count != tc.gpus {
				t.Errorf("GPU = %+v, want %s/%s x%d", m.GPU, tc.gpuType, tc.slurm, tc.gpus)
			}
			if m.NICStack != tc.stack || m.GPUNICCount != tc.gpuNICs || m.MTU != tc.mtu {
				t.Errorf("nic = %s x%d mtu %d, want %s x%d mtu %d", m.NICStack, m.GPUNICCount, m.MTU, tc.stack, tc.gpuNICs, tc.mtu)
			}
			if m.Placement.Mode != tc.placement || m.Placement.ReservationBound != tc.reservationBound || m.Placement.AcceleratorTopology != tc.topology {
				t.Errorf("placement = %+v", m.Placement)
			}
			if m.OnHostMaintenance != MaintenanceTerminate {
				t.Errorf("GPU machine must TERMINATE on host maintenance, got %s", m.OnHostMaintenance)
			}
			if !strings.Contains(m.ImageFamily, tc.wantImageContains) {
				t.Errorf("image family %q should contain %q", m.ImageFamily, tc.wantImageContains)
			}
			if _, has := m.Pins[PinRxDM]; has != tc.wantRxDM {
				t.Errorf("RxDM pinned = %v, want %v", has, tc.wantRxDM)
			}
			if m.Pins[PinDriver] == "" || m.Pins[PinNCCLPlugin] == "" {
				t.Errorf("driver and NCCL plugin must be pinned: %v", m.Pins)
			}
			if m.SpotCapable != tc.wantHasSpot {
				t.Errorf("SpotCapable = %v", m.SpotCapable)
			}
			if m.NCCLBusBandwidthGBps <= 0 {
				t.Errorf("multi-node GPU machine needs an NCCL bandwidth threshold")
			}
		})
	}
}

func TestNCCLThresholdsFromFacts(t *testing.T) {
	want := map[string]float64{"a3-highgpu-8g": 60, "a3-megagpu-8g": 150, "a3-ultragpu-8g": 250, "a4-highgpu-8g": 250, "a4x-highgpu-4g": 160}
	for name, w := range want {
		m, _ := Machine(name)
		if m.NCCLBusBandwidthGBps != w {
			t.Errorf("%s threshold = %v, want %v", name, m.NCCLBusBandwidthGBps, w)
		}
	}
}

func TestG2L4Counts(t *testing.T) {
	want := map[int]int{4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}
	for cpus, gpus := range want {
		name := "g2-standard-" + strconv.Itoa(cpus)
		m, ok := Machine(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		if m.GPU == nil || m.GPU.Type != "nvidia-l4" || m.GPU.Count != gpus {
			t.Errorf("%s GPU = %+v, want %d x nvidia-l4", name, m.GPU, gpus)
		}
		if m.CPUs != cpus || m.MemoryMB != cpus*4*1024 {
			t.Errorf("%s cpus/mem = %d/%d", name, m.CPUs, m.MemoryMB)
		}
		if m.NICStack != NICNone || m.OnHostMaintenance != MaintenanceTerminate {
			t.Errorf("%s stack %s maintenance %s", name, m.NICStack, m.OnHostMaintenance)
		}
	}
}

func TestGeneralPurposeShapes(t *testing.T) {
	tests := []struct {
		name        string
		cpus, memGB int
		family      string
	}{
		{"e2-standard-2", 2, 8, "e2"},
		{"e2-standard-4", 4, 16, "e2"},
		{"e2-standard-8", 8, 32, "e2"},
		{"n2-standard-2", 2, 8, "n2"},
		{"n2-standard-128", 128, 512, "n2"},
		{"n2-highmem-2", 2, 16, "n2"},
		{"n2-highmem-80", 80, 640, "n2"},
		{"n2-highmem-96", 96, 768, "n2"},
		{"n2-highmem-128", 128, 864, "n2"},
		{"c2-standard-4", 4, 16, "c2"},
		{"c2-standard-30", 30, 120, "c2"},
		{"c2-standard-60", 60, 240, "c2"},
		{"c3-standard-4", 4, 16, "c3"},
		{"c3-standard-22", 22, 88, "c3"},
		{"c3-standard-176", 176, 704, "c3"},
		{"c3-highmem-4", 4, 32, "c3"},
		{"c3-highmem-176", 176, 1408, "c3"},
	}
	for _, tc := range tests {
		m, ok := Machine(tc.name)
		if !ok {
			t.Errorf("%s missing", tc.name)
			continue
		}
		if m.CPUs != tc.cpus || m.MemoryMB != tc.memGB*1024 || m.Family != tc.family {
			t.Errorf("%s = %d vCPU %d MB %s, want %d vCPU %d GB %s", tc.name, m.CPUs, m.MemoryMB, m.Family, tc.cpus, tc.memGB, tc.family)
		}
		if m.HasGPU() || m.NICStack != NICNone || m.OnHostMaintenance != MaintenanceMigrate || m.MTU != 1460 {
			t.Errorf("%s: general purpose machine has GPU/NIC/maintenance facts wrong: %+v", tc.name, m)
		}
	}
	for _, gone := range []string{"n2-standard-1", "c2-standard-2", "c3-standard-192", "e2-standard-64", "e2-highmem-32", "t2d-highmem-4", "a2-highgpu-3g", ""} {
		if _, ok := Machine(gone); ok {
			t.Errorf("Machine(%q) should not exist", gone)
		}
	}
}

func TestMachinesReturnsCopies(t *testing.T) {
	m, _ := Machine("a3-highgpu-8g")
	m.GPU.Count = 1
	m.Pins[PinDriver] = "changed"
	all := Machines()
	all[0].CPUs = -1
	again, _ := Machine("a3-highgpu-8g")
	if again.GPU.Count != 8 || again.Pins[PinDriver] == "changed" {
		t.Fatal("mutating a returned machine type changed the catalog")
	}
	if Machines()[0].CPUs == -1 {
		t.Fatal("mutating Machines() changed the catalog")
	}
}

func TestMachineTypeNamesSortedAndComplete(t *testing.T) {
	names := MachineTypeNames()
	if !slices.IsSorted(names) {
		t.Error("names not sorted")
	}
	if len(names) != len(Machines()) {
		t.Errorf("%d names for %d machines", len(names), len(Machines()))
	}
	for _, n := range []string{"a3-highgpu-8g", "a3-megagpu-8g", "a3-ultragpu-8g", "a4-highgpu-8g", "a4x-highgpu-4g", "g2-standard-96", "e2-standard-2"} {
		if !slices.Contains(names, n) {
			t.Errorf("missing %s", n)
		}
	}
	gpu := GPUMachineTypeNames()
	if len(gpu) != 27 {
		t.Errorf("GPU machine types = %d (%v), want 27", len(gpu), gpu)
	}
}

func TestValidateMachineType(t *testing.T) {
	if err := ValidateMachineType("c3-standard-88"); err != nil {
		t.Fatal(err)
	}
	err := ValidateMachineType("a3-highgpu-4g")
	if err == nil || !strings.Contains(err.Error(), "a3-megagpu-8g") {
		t.Errorf("want suggestion of a3 machines, got %v", err)
	}
	err = ValidateMachineType("z9-thing")
	if err == nil || !strings.Contains(err.Error(), "not known") {
		t.Errorf("got %v", err)
	}
}

func TestSlurmValues(t *testing.T) {
	tests := []struct {
		name     string
		cpus     int
		realMem  int
		gres     string
		features []string
	}{
		{"a3-highgpu-8g", 208, 1916928 - 95846, "gpu:h100:8", []string{"a3", "a3-high", "h100", "x86_64"}},
		{"a3-megagpu-8g", 208, 1916928 - 95846, "gpu:h100:8", []string{"a3", "a3-mega", "h100", "x86_64"}},
		{"a4x-highgpu-4g", 140, 905216 - 45260, "gpu:gb200:4", []string{"a4x", "gb200", "arm64"}},
		{"g2-standard-24", 24, 98304 - 4915, "gpu:l4:2", []string{"g2", "l4", "x86_64"}},
		// 5% of 8 GB is below the 1 GiB floor.
		{"e2-standard-2", 2, 8192 - 1024, "", []string{"e2", "x86_64"}},
		{"n2-standard-32", 32, 131072 - 6553, "", []string{"n2", "x86_64"}},
	}
	for _, tc := range tests {
		m, _ := Machine(tc.name)
		if m.SlurmCPUs() != tc.cpus {
			t.Errorf("%s SlurmCPUs = %d, want %d", tc.name, m.SlurmCPUs(), tc.cpus)
		}
		if got := m.SlurmRealMemoryMB(); got != tc.realMem {
			t.Errorf("%s SlurmRealMemoryMB = %d, want %d", tc.name, got, tc.realMem)
		}
		if m.SlurmGres() != tc.gres {
			t.Errorf("%s gres = %q, want %q", tc.name, m.SlurmGres(), tc.gres)
		}
		if !slices.Equal(m.Features(), tc.features) {
			t.Errorf("%s features = %v, want %v", tc.name, m.Features(), tc.features)
		}
	}
	for _, m := range Machines() {
		r := float64(m.SlurmRealMemoryMB()) / float64(m.MemoryMB)
		if m.MemoryMB < 8*1024 {
			// The 1 GB floor of the reserve dominates on small types (e2-micro, n1-standard-1): the node
			// still keeps memory for itself and offers the rest.
			if got := m.SlurmRealMemoryMB(); got <= 0 || got >= m.MemoryMB {
				t.Errorf("%s RealMemory %d of %d MB", m.Name, got, m.MemoryMB)
			}
			continue
		}
		if r < 0.85 || r > 0.9501 {
			t.Errorf("%s RealMemory is %.3f of memory, want 0.85-0.95", m.Name, r)
		}
	}
}

func TestQuotaMetrics(t *testing.T) {
	tests := []struct {
		name string
		want map[string]float64
		spot map[string]float64
	}{
		{"a3-highgpu-8g", map[string]float64{"CPUS": 208, "NVIDIA_H100_GPUS": 8, "INSTANCES": 1},
			map[string]float64{"PREEMPTIBLE_CPUS": 208, "PREEMPTIBLE_NVIDIA_H100_GPUS": 8, "INSTANCES": 1}},
		{"a3-megagpu-8g", map[string]float64{"CPUS": 208, "NVIDIA_H100_MEGA_GPUS": 8, "INSTANCES": 1}, nil},
		{"a3-ultragpu-8g", map[string]float64{"CPUS": 224, "NVIDIA_H200_GPUS": 8, "INSTANCES": 1}, nil},
		{"a4-highgpu-8g", map[string]float64{"CPUS": 224, "NVIDIA_B200_GPUS": 8, "INSTANCES": 1}, nil},
		{"a4x-highgpu-4g", map[string]float64{"CPUS": 140, "NVIDIA_GB200_GPUS": 4, "INSTANCES": 1}, nil},
		{"g2-standard-48", map[string]float64{"CPUS": 48, "NVIDIA_L4_GPUS": 4, "INSTANCES": 1}, nil},
		{"n2-highmem-8", map[string]float64{"N2_CPUS": 8, "INSTANCES": 1},
			map[string]float64{"PREEMPTIBLE_CPUS": 8, "INSTANCES": 1}},
		{"c2-standard-60", map[string]float64{"C2_CPUS": 60, "INSTANCES": 1}, nil},
		{"c3-standard-176", map[string]float64{"C3_CPUS": 176, "INSTANCES": 1}, nil},
		{"e2-standard-4", map[string]float64{"CPUS": 4, "INSTANCES": 1}, nil},
	}
	for _, tc := range tests {
		m, _ := Machine(tc.name)
		if got := m.QuotaMetrics(); !mapsEqual(got, tc.want) {
			t.Errorf("%s QuotaMetrics = %v, want %v", tc.name, got, tc.want)
		}
		if tc.spot != nil {
			if got := m.SpotQuotaMetrics(); !mapsEqual(got, tc.spot) {
				t.Errorf("%s SpotQuotaMetrics = %v, want %v", tc.name, got, tc.spot)
			}
		}
	}
	names := QuotaMetricNames()
	for _, n := range []string{"CPUS", "N2_CPUS", "NVIDIA_H100_MEGA_GPUS", "PREEMPTIBLE_NVIDIA_L4_GPUS"} {
		if !slices.Contains(names, n) {
			t.Errorf("QuotaMetricNames lacks %s", n)
		}
	}
}

func TestAcceleratorTypes(t *testing.T) {
	got := AcceleratorTypes()
	want := map[string]int{"nvidia-b200": 8, "nvidia-gb200": 4, "nvidia-h100-80gb": 8, "nvidia-h100-mega-80gb": 8, "nvidia-h200-141gb": 8, "nvidia-l4": 8,
		"nvidia-tesla-a100": 16, "nvidia-a100-80gb": 8, "nvidia-rtx-pro-6000": 8}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for _, a := range got {
		if want[a.Name] != a.MaximumCardsPerInstance || a.Description == "" {
			t.Errorf("%+v", a)
		}
	}
}

func TestDescription(t *testing.T) {
	m, _ := Machine("a3-highgpu-8g")
	if d := m.Description(); d != "208 vCPUs, 1872 GB RAM, 8 H100 GPUs" {
		t.Errorf("description %q", d)
	}
	// The wording of recorded real machineTypes answers, which differs by series.
	for name, want := range map[string]string{
		"e2-standard-2":   "Efficient Instance, 2 vCPUs, 8 GB RAM",
		"e2-micro":        "Efficient Instance, 2 vCPU (1/8 shared physical core) and 1 GB RAM",
		"e2-medium":       "Efficient Instance, 2 vCPU (1/2 shared physical core) and 4 GB RAM",
		"f1-micro":        "1 vCPU (shared physical core) and 0.6 GB RAM",
		"g1-small":        "1 vCPU (shared physical core) and 1.7 GB RAM",
		"n1-standard-1":   "1 vCPU, 3.75 GB RAM",
		"n1-highcpu-2":    "2 vCPUs, 1.8 GB RAM",
		"n2-standard-2":   "2 vCPUs 8 GB RAM",
		"n2d-highcpu-2":   "2 vCPUs 2 GB RAM",
		"c2-standard-4":   "Compute Optimized: 4 vCPUs, 16 GB RAM",
		"t2d-standard-48": "48 vCPUs, 192 GB RAM",
	} {
		if m, ok := Machine(name); !ok || m.Description() != want {
			t.Errorf("%s description %q, want %q", name, m.Description(), want)
		}
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
