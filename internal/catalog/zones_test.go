package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestZonesListed(t *testing.T) {
	want := []string{
		"us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f",
		"us-east1-b", "us-east1-c", "us-east1-d", "us-east4-a", "us-east4-b", "us-east4-c",
		"us-east5-a", "us-east5-b", "us-west1-a", "us-west1-b", "us-west4-a", "us-west4-b",
		"europe-west1-b", "europe-west1-c", "europe-west1-d", "europe-west4-a", "europe-west4-b", "europe-west4-c",
		"asia-northeast1-a", "asia-northeast1-b", "asia-northeast1-c", "asia-southeast1-b", "asia-southeast1-c",
	}
	got := ZoneNames()
	if !slices.IsSorted(got) {
		t.Error("zone names not sorted")
	}
	for _, z := range want {
		if !slices.Contains(got, z) {
			t.Errorf("zone %s missing", z)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d zones, want %d", len(got), len(want))
	}
	regions := Regions()
	wantRegions := []string{"asia-northeast1", "asia-southeast1", "europe-west1", "europe-west4", "us-central1", "us-east1", "us-east4", "us-east5", "us-west1", "us-west4"}
	if !slices.Equal(regions, wantRegions) {
		t.Errorf("regions = %v", regions)
	}
}

func TestRegionOf(t *testing.T) {
	for zone, want := range map[string]string{"us-central1-a": "us-central1", "asia-northeast1-c": "asia-northeast1", "europe-west4-b": "europe-west4"} {
		if r, ok := RegionOf(zone); !ok || r != want {
			t.Errorf("RegionOf(%s) = %s, %v", zone, r, ok)
		}
	}
	for _, bad := range []string{"us-central1", "mars-1-a", "", "us-central1-z"} {
		if _, ok := RegionOf(bad); ok {
			t.Errorf("RegionOf(%q) should fail", bad)
		}
	}
}

func TestZoneOffers(t *testing.T) {
	tests := []struct {
		zone, machine string
		want          bool
	}{
		{"us-central1-a", "a3-highgpu-8g", true},
		{"us-central1-a", "a3-megagpu-8g", true},
		{"us-central1-a", "a4x-highgpu-4g", true},
		{"us-central1-a", "a3-ultragpu-8g", false},
		{"us-central1-b", "a3-ultragpu-8g", true},
		{"us-central1-b", "a4-highgpu-8g", true},
		{"us-central1-b", "a3-highgpu-8g", false},
		{"us-central1-f", "g2-standard-4", false},
		{"us-central1-f", "n2-standard-8", true},
		{"us-east5-a", "c2-standard-4", false},
		{"us-east1-c", "g2-standard-96", true},
		{"us-east1-c", "no-such-type", false},
	}
	for _, tc := range tests {
		z, ok := Zone(tc.zone)
		if !ok {
			t.Fatalf("zone %s missing", tc.zone)
		}
		if got := z.Offers(tc.machine); got != tc.want {
			t.Errorf("%s offers %s = %v, want %v", tc.zone, tc.machine, got, tc.want)
		}
	}
	z, _ := Zone("us-central1-b")
	if !z.HasRDMAProfile || z.NetworkProfile() != "us-central1-b-vpc-roce" {
		t.Errorf("us-central1-b profile: %v %q", z.HasRDMAProfile, z.NetworkProfile())
	}
	z, _ = Zone("us-central1-c")
	if z.HasRDMAProfile || z.NetworkProfile() != "" {
		t.Error("us-central1-c has no RDMA machines, so no vpc-roce profile")
	}
	if names := z.MachineTypeNames(); !slices.Contains(names, "a3-highgpu-8g") || slices.Contains(names, "a4-highgpu-8g") {
		t.Errorf("us-central1-c machine types: %v", names)
	}
	if _, ok := ZoneByName("us-central1-c"); !ok {
		t.Error("ZoneByName")
	}
}

func TestZoneReturnsCopies(t *testing.T) {
	z, _ := Zone("us-central1-a")
	z.GPUTypes[0] = "changed"
	z.Families[0] = "changed"
	again, _ := Zone("us-central1-a")
	if slices.Contains(again.GPUTypes, "changed") || slices.Contains(again.Families, "changed") {
		t.Fatal("mutating a zone changed the catalog")
	}
}

func TestValidateZone(t *testing.T) {
	if err := ValidateZone("us-east4-c"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ zone, contains string }{
		{"us-central1-z", "us-central1-a, us-central1-b"},
		{"us-central1", "is a region, not a zone"},
		{"moon-base1-a", "not known"},
	}
	for _, tc := range tests {
		err := ValidateZone(tc.zone)
		if err == nil || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("ValidateZone(%q) = %v, want %q", tc.zone, err, tc.contains)
		}
	}
}

func TestValidateMachineInZone(t *testing.T) {
	if err := ValidateMachineInZone("a4-highgpu-8g", "us-central1-b"); err != nil {
		t.Fatal(err)
	}
	err := ValidateMachineInZone("a4-highgpu-8g", "us-central1-a")
	if err == nil || !strings.Contains(err.Error(), "us-central1-b") {
		t.Errorf("want zones offering a4, got %v", err)
	}
	if err := ValidateMachineInZone("a9-x", "us-central1-a"); err == nil {
		t.Error("unknown machine accepted")
	}
	if err := ValidateMachineInZone("n2-standard-2", "nowhere-1-a"); err == nil {
		t.Error("unknown zone accepted")
	}
}
