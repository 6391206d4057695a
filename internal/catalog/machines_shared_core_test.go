package catalog

import (
	"strings"
	"testing"
)

// TestGeneralPurposeFamiliesAsRecorded: the general-purpose types real clients use in examples and tests, with
// the guestCpus, memoryMb, isSharedCpu, maximumPersistentDisks(SizeGb) and imageSpaceGb that recorded real
// machineTypes answers carry, and a zone that offers each.
func TestGeneralPurposeFamiliesAsRecorded(t *testing.T) {
	tests := []struct {
		name                    string
		cpus, memMB             int
		shared                  bool
		disks, disksGB, imageGB int
	}{
		{"f1-micro", 1, 614, true, 16, 3072, 0},
		{"g1-small", 1, 1740, true, 16, 3072, 0},
		{"e2-micro", 2, 1024, true, 16, 3072, 0},
		{"e2-small", 2, 2048, true, 16, 3072, 0},
		{"e2-medium", 2, 4096, true, 128, 263168, 0},
		{"e2-standard-32", 32, 131072, false, 128, 263168, 0},
		{"e2-highmem-16", 16, 131072, false, 128, 263168, 0},
		{"e2-highcpu-2", 2, 2048, false, 128, 263168, 0},
		{"n1-standard-1", 1, 3840, false, 128, 263168, 10},
		{"n1-standard-4", 4, 15360, false, 128, 263168, 10},
		{"n1-highcpu-2", 2, 1843, false, 128, 263168, 10},
		{"n1-highcpu-96", 96, 88474, false, 128, 263168, 10},
		{"n2-highcpu-2", 2, 2048, false, 128, 263168, 0},
		{"n2d-highcpu-224", 224, 229376, false, 128, 263168, 0},
		{"c2-standard-60", 60, 245760, false, 128, 263168, 0},
		{"c3-highcpu-176", 176, 360448, false, 128, 263168, 0},
		{"c4-highcpu-24", 24, 49152, false, 128, 263168, 0},
		{"t2d-standard-1", 1, 4096, false, 128, 263168, 0},
		{"t2d-standard-60", 60, 245760, false, 128, 263168, 0},
	}
	for _, tc := range tests {
		m, ok := Machine(tc.name)
		if !ok {
			t.Errorf("%s missing", tc.name)
			continue
		}
		if m.CPUs != tc.cpus || m.MemoryMB != tc.memMB || m.SharedCPU != tc.shared || m.MaxPersistentDisks != tc.disks ||
			m.DiskCapacityLimitGB() != tc.disksGB || m.ImageSpaceGB() != tc.imageGB {
			t.Errorf("%s = %d vCPU %d MB shared %v disks %d/%d GB image %d GB, want %+v", tc.name, m.CPUs, m.MemoryMB,
				m.SharedCPU, m.MaxPersistentDisks, m.DiskCapacityLimitGB(), m.ImageSpaceGB(), tc)
		}
		if m.HasGPU() || m.Placement.Mode == PlacementNone != (m.SharedCPU || m.Family == "n1" || m.Family == "e2") {
			t.Errorf("%s: GPU or placement wrong: %+v", tc.name, m)
		}
		if len(ZonesOffering(tc.name)) == 0 {
			t.Errorf("%s: no zone offers it", tc.name)
		}
		if err := ValidateMachineInZone(tc.name, "us-central1-a"); err != nil {
			t.Errorf("%s in us-central1-a: %v", tc.name, err)
		}
	}
}

// TestUnknownMachineTypeSuggestsItsShape: families grown past a listable size still get a useful hint.
func TestUnknownMachineTypeSuggestsItsShape(t *testing.T) {
	err := ValidateMachineType("n1-standard-3")
	if err == nil || !strings.Contains(err.Error(), "machine types of this shape: n1-standard-1, n1-standard-16,") {
		t.Errorf("n1-standard-3: %v", err)
	}
	if err := ValidateMachineType("a3-highgpu-4g"); err == nil || !strings.Contains(err.Error(), "machine types of this family: a3-") {
		t.Errorf("a3-highgpu-4g: %v", err)
	}
}
