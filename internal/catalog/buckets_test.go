package catalog

import (
	"strings"
	"testing"
	"time"
)

func TestBucketNameRules(t *testing.T) {
	for _, ok := range []string{"abc", "ml-prod-checkpoints", "a_b.c-d", "data.example.com", strings.Repeat("a", 63)} {
		if err := ValidateBucketName(ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for name, why := range map[string]string{
		"ab": "at least 3", "Upper": "lowercase", "-lead": "start and end", strings.Repeat("a", 64): "at most 63",
		"goog-x": `"goog"`, "my-google-data": `"google"`, "192.168.5.4": "IP address", "a..b": "empty",
		strings.Repeat("a", 64) + ".com": "each dot-separated part",
	} {
		err := ValidateBucketName(name)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ValidateBucketName(%q) = %v, want an error about %s", name, err, why)
		}
	}
}

func TestBucketLocations(t *testing.T) {
	for loc, want := range map[string]string{"US": "multi-region", "eu": "multi-region", "NAM4": "dual-region", "us-central1": "region", "US-CENTRAL1": "region"} {
		if got, ok := BucketLocationType(loc); !ok || got != want {
			t.Errorf("BucketLocationType(%q) = %q, %v; want %q", loc, got, ok, want)
		}
	}
	if err := ValidateBucketLocation("mars-north1"); err == nil || !strings.Contains(err.Error(), "us-central1") {
		t.Errorf("unknown location: %v (want the offered regions listed)", err)
	}
}

func TestBucketFeatureRules(t *testing.T) {
	if err := ValidateBucketFeatures("STANDARD", true, true, true); err != nil {
		t.Errorf("autoclass + HNS + uniform access rejected: %v", err)
	}
	if err := ValidateBucketFeatures("STANDARD", false, true, false); err == nil || !strings.Contains(err.Error(), "uniform") {
		t.Errorf("HNS without uniform access: %v", err)
	}
	if err := ValidateBucketFeatures("COLDLINE", true, false, false); err == nil || !strings.Contains(err.Error(), "STANDARD") {
		t.Errorf("autoclass on COLDLINE: %v", err)
	}
	for d, ok := range map[time.Duration]bool{0: true, SoftDeleteMin: true, SoftDeleteMax: true, 24 * time.Hour: false, SoftDeleteMax + time.Second: false} {
		if err := ValidateSoftDeleteRetention(d); (err == nil) != ok {
			t.Errorf("ValidateSoftDeleteRetention(%s) = %v", d, err)
		}
	}
}
