package catalog

import "testing"

// The figures Compute's machineTypes API reports for the series users name besides A3/A4/G2/N2/C2/C3/E2
// (public Compute docs machine family pages).
func TestSeriesMachineFigures(t *testing.T) {
	tests := []struct {
		name        string
		cpus, memMB int
		gpuType     string
		gpus        int
		maintenance string
	}{
		{"n1-standard-2", 2, 7680, "", 0, MaintenanceMigrate},
		{"n1-standard-96", 96, 368640, "", 0, MaintenanceMigrate},
		{"n1-highmem-8", 8, 53248, "", 0, MaintenanceMigrate},
		{"n2d-standard-224", 224, 917504, "", 0, MaintenanceMigrate},
		{"n2d-highmem-96", 96, 786432, "", 0, MaintenanceMigrate},
		{"c2d-standard-112", 112, 458752, "", 0, MaintenanceMigrate},
		{"c3d-standard-360", 360, 1474560, "", 0, MaintenanceMigrate},
		{"c4-standard-192", 192, 737280, "", 0, MaintenanceMigrate},
		{"c4-highmem-2", 2, 15872, "", 0, MaintenanceMigrate},
		{"h3-standard-88", 88, 360448, "", 0, MaintenanceTerminate},
		{"h4d-highmem-192", 192, 1523712, "", 0, MaintenanceTerminate},
		{"a2-highgpu-1g", 12, 87040, "nvidia-tesla-a100", 1, MaintenanceTerminate},
		{"a2-megagpu-16g", 96, 1392640, "nvidia-tesla-a100", 16, MaintenanceTerminate},
		{"a2-ultragpu-8g", 96, 1392640, "nvidia-a100-80gb", 8, MaintenanceTerminate},
		{"a3-edgegpu-8g", 208, 1916928, "nvidia-h100-80gb", 8, MaintenanceTerminate},
		{"g4-standard-48", 48, 184320, "nvidia-rtx-pro-6000", 1, MaintenanceTerminate},
		{"g4-standard-384", 384, 1474560, "nvidia-rtx-pro-6000", 8, MaintenanceTerminate},
	}
	for _, tc := range tests {
		m, ok := Machine(tc.name)
		if !ok {
			t.Errorf("%s missing", tc.name)
			continue
		}
		if m.CPUs != tc.cpus || m.MemoryMB != tc.memMB || m.GPUCount() != tc.gpus || m.OnHostMaintenance != tc.maintenance {
			t.Errorf("%s = %d vCPU, %d MB, %d GPUs, %s; want %d, %d, %d, %s", tc.name, m.CPUs, m.MemoryMB, m.GPUCount(), m.OnHostMaintenance, tc.cpus, tc.memMB, tc.gpus, tc.maintenance)
		}
		if tc.gpus > 0 && m.GPU.Type != tc.gpuType {
			t.Errorf("%s: GPU %s, want %s", tc.name, m.GPU.Type, tc.gpuType)
		}
		if len(ZonesOffering(tc.name)) == 0 {
			t.Errorf("%s: no zone offers it", tc.name)
		}
	}
	// The HPC series are offered in few zones; a zone without them refuses them.
	if z, _ := Zone("us-central1-f"); z.Offers("h3-standard-88") || !z.Offers("c4-standard-8") {
		t.Error("us-central1-f: h3 must not be offered, c4 must")
	}
}
