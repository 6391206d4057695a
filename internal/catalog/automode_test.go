package catalog

import (
	"net/netip"
	"testing"
)

func TestAutoModeRanges(t *testing.T) {
	for region, want := range map[string]string{"us-central1": "10.128.0.0/20", "asia-east1": "10.140.0.0/20",
		"europe-west10": "10.214.0.0/20", "africa-south1": "10.218.0.0/20", "europe-north2": "10.226.0.0/20"} {
		if r, _ := AutoModeSubnetRange(region); r != want {
			t.Errorf("%s = %q, want Google's %s", region, r, want)
		}
	}
	plan := netip.MustParsePrefix("10.128.0.0/9")
	seen := map[string]string{}
	for _, region := range Regions() {
		r, ok := AutoModeSubnetRange(region)
		if !ok {
			t.Errorf("region %s has no auto-mode range", region)
			continue
		}
		if p, err := netip.ParsePrefix(r); err != nil || p.Bits() != 20 || !plan.Contains(p.Addr()) {
			t.Errorf("region %s: range %s is not a /20 of 10.128.0.0/9", region, r)
		}
		if other, dup := seen[r]; dup {
			t.Errorf("%s and %s share %s", region, other, r)
		}
		seen[r] = region
	}
	if len(autoModeRanges) != len(Regions()) {
		t.Errorf("%d auto-mode ranges for %d regions", len(autoModeRanges), len(Regions()))
	}
}
