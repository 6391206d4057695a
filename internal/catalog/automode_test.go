package catalog

import "testing"

func TestAutoModeRanges(t *testing.T) {
	if r, _ := AutoModeSubnetRange("us-central1"); r != "10.128.0.0/20" {
		t.Errorf("us-central1 = %q, want Google's 10.128.0.0/20", r)
	}
	for _, region := range Regions() {
		if _, ok := AutoModeSubnetRange(region); !ok {
			t.Errorf("region %s has no auto-mode range", region)
		}
	}
	if len(autoModeRanges) != len(Regions()) {
		t.Errorf("%d auto-mode ranges for %d regions", len(autoModeRanges), len(Regions()))
	}
}
