package catalog

import (
	"slices"
	"strings"
	"testing"
)

// TestZonesListed: every public region (the 41 an auto-mode network of a real project gets a subnet in) with
// its public zones — three per region, four in us-central1, b/c/d in us-east1 and europe-west1.
func TestZonesListed(t *testing.T) {
	got := ZoneNames()
	if !slices.IsSorted(got) {
		t.Error("zone names not sorted")
	}
	regions := Regions()
	if len(regions) != 41 || len(regions) != len(autoModeRanges) {
		t.Errorf("%d regions, want the 41 public ones: %v", len(regions), regions)
	}
	for _, r := range regions {
		var suffixes []string
		for _, z := range ZonesInRegion(r) {
			suffixes = append(suffixes, strings.TrimPrefix(z.Name, r+"-"))
		}
		want := []string{"a", "b", "c"}
		switch r {
		case "us-central1":
			want = []string{"a", "b", "c", "f"}
		case "us-east1", "europe-west1":
			want = []string{"b", "c", "d"}
		}
		if !slices.Equal(suffixes, want) {
			t.Errorf("region %s zones %v, want %v", r, suffixes, want)
		}
	}
	if len(got) != 124 {
		t.Errorf("%d zones, want 124", len(got))
	}
	// GPUs stay on the zones that have them: a zone added for completeness offers none.
	for _, z := range []string{"africa-south1-a", "europe-north2-c", "us-west1-c", "asia-southeast1-a"} {
		zi, ok := Zone(z)
		if !ok || len(zi.GPUTypes) != 0 || zi.HasRDMAProfile || !zi.Offers("n2-standard-2") {
			t.Errorf("zone %s: %+v, %v", z, zi, ok)
		}
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
