package catalog

import (
	"strings"
	"testing"
)

func TestFilestoreTiers(t *testing.T) {
	tests := []struct {
		name            string
		basic, regional bool
		min, max, step  int64
		shrink          bool
		share, prefix   int
	}{
		{"BASIC_HDD", true, false, 1024, 65433, 1, false, 16, 29},
		{"BASIC_SSD", true, false, 2560, 65433, 1, false, 16, 29},
		{"ZONAL", false, false, 1024, 102400, 256, true, 63, 26},
		{"REGIONAL", false, true, 1024, 102400, 256, true, 63, 26},
		{"ENTERPRISE", false, true, 1024, 10240, 256, true, 63, 26},
		{"HIGH_SCALE_SSD", false, false, 10240, 102400, 2560, true, 63, 24},
	}
	for _, tc := range tests {
		tr, ok := FilestoreTierByName(tc.name)
		if !ok {
			t.Fatalf("%s missing", tc.name)
		}
		if tr.Basic != tc.basic || tr.Regional != tc.regional || tr.MinGB != tc.min || tr.MaxGB != tc.max ||
			tr.StepGB() != tc.step || tr.CanShrink != tc.shrink || tr.ShareNameMax != tc.share || tr.DirectPeeringPrefix != tc.prefix {
			t.Errorf("%s = %+v", tc.name, tr)
		}
		first, last := tr.Steps[0], tr.Steps[len(tr.Steps)-1]
		if first.Min != tr.MinGB || last.Max != tr.MaxGB {
			t.Errorf("%s: steps %v disagree with min/max", tc.name, tr.Steps)
		}
	}
	if len(FilestoreTiers()) != len(tests) {
		t.Errorf("tiers: %v", FilestoreTierNames())
	}
	if tr, ok := FilestoreTierByName("STANDARD"); !ok || tr.Name != "BASIC_HDD" {
		t.Error("STANDARD alias")
	}
	if tr, ok := FilestoreTierByName("PREMIUM"); !ok || tr.Name != "BASIC_SSD" {
		t.Error("PREMIUM alias")
	}
	if _, ok := FilestoreTierByName("zonal"); ok {
		t.Error("tier names are the API's uppercase enum names")
	}
}

func TestValidateFilestoreCapacity(t *testing.T) {
	tests := []struct {
		tier     string
		gb       int64
		contains string // "" = valid
	}{
		{"BASIC_HDD", 1024, ""},
		{"BASIC_HDD", 1023, "capacity_gb 1023 is below the minimum 1024 for tier BASIC_HDD"},
		{"BASIC_HDD", 1025, ""},
		{"BASIC_HDD", 65433, ""},
		{"BASIC_HDD", 65434, "above the maximum 65433"},
		{"BASIC_SSD", 2559, "below the minimum 2560"},
		{"BASIC_SSD", 2560, ""},
		{"PREMIUM", 2560, ""},
		{"ZONAL", 1000, "capacity_gb 1000 is below the minimum 1024 for tier ZONAL"},
		{"ZONAL", 1024, ""},
		{"ZONAL", 1280, ""},
		{"ZONAL", 1100, "nearest valid sizes are 1024 and 1280"},
		{"ZONAL", 9984, ""},
		{"ZONAL", 10000, "nearest valid sizes are 9984 and 10240"},
		{"ZONAL", 10239, "not a valid size"},
		{"ZONAL", 10240, ""},
		{"ZONAL", 12800, ""},
		{"ZONAL", 11264, "nearest valid sizes are 10240 and 12800"},
		{"ZONAL", 102400, ""},
		{"ZONAL", 102401, "above the maximum 102400"},
		{"REGIONAL", 2048, ""},
		{"REGIONAL", 2049, "1024-9984 GB in steps of 256 GB, then 10240-102400 GB in steps of 2560 GB"},
		{"ENTERPRISE", 10240, ""},
		{"ENTERPRISE", 10496, "above the maximum 10240"},
		{"ENTERPRISE", 1536, ""},
		{"ENTERPRISE", 1537, "not a valid size"},
		{"HIGH_SCALE_SSD", 10239, "below the minimum 10240"},
		{"HIGH_SCALE_SSD", 12800, ""},
		{"HIGH_SCALE_SSD", 11000, "not a valid size"},
		{"FAST", 1024, "tier \"FAST\" is not known"},
	}
	for _, tc := range tests {
		err := ValidateFilestoreCapacity(tc.tier, tc.gb)
		checkErr(t, "ValidateFilestoreCapacity("+tc.tier+")", err, tc.contains)
	}
}

func TestValidateFilestoreResize(t *testing.T) {
	tests := []struct {
		tier     string
		from, to int64
		contains string
	}{
		{"BASIC_HDD", 1024, 2048, ""},
		{"BASIC_HDD", 2048, 1024, "tier BASIC_HDD can only grow"},
		{"BASIC_SSD", 4096, 2560, "can only grow"},
		{"BASIC_SSD", 2560, 2560, ""},
		{"ZONAL", 10240, 1024, ""},
		{"ZONAL", 2048, 1000, "below the minimum"},
		{"REGIONAL", 12800, 9984, ""},
		{"ENTERPRISE", 4096, 2048, ""},
		{"HIGH_SCALE_SSD", 20480, 10240, ""},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateFilestoreResize("+tc.tier+")", ValidateFilestoreResize(tc.tier, tc.from, tc.to), tc.contains)
	}
}

func TestValidateFilestoreShareName(t *testing.T) {
	tests := []struct {
		tier, name, contains string
	}{
		{"BASIC_HDD", "home", ""},
		{"BASIC_HDD", "a_1", ""},
		{"BASIC_HDD", strings.Repeat("a", 16), ""},
		{"BASIC_HDD", strings.Repeat("a", 17), "allows at most 16"},
		{"ZONAL", strings.Repeat("a", 17), ""},
		{"ZONAL", strings.Repeat("a", 63), ""},
		{"ZONAL", strings.Repeat("a", 64), "allows at most 63"},
		{"ZONAL", "", "must not be empty"},
		{"ZONAL", "1home", "must start with a lowercase letter"},
		{"ZONAL", "_home", "must start with a lowercase letter"},
		{"ZONAL", "Home", "lowercase"},
		{"ZONAL", "my-home", "underscores"},
		{"ZONAL", "my home", "underscores"},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateFilestoreShareName("+tc.tier+", "+tc.name+")", ValidateFilestoreShareName(tc.tier, tc.name), tc.contains)
	}
}

func TestValidateFilestoreLocation(t *testing.T) {
	tests := []struct {
		tier, loc, contains string
	}{
		{"ZONAL", "us-central1-a", ""},
		{"BASIC_HDD", "europe-west4-b", ""},
		{"ZONAL", "us-central1", "live in a zone"},
		{"REGIONAL", "us-central1", ""},
		{"ENTERPRISE", "asia-northeast1", ""},
		{"REGIONAL", "us-central1-a", "use location \"us-central1\""},
		{"REGIONAL", "mars1", "not a known region"},
		{"ZONAL", "mars1-a", "not known"},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateFilestoreLocation("+tc.tier+", "+tc.loc+")", ValidateFilestoreLocation(tc.tier, tc.loc), tc.contains)
	}
}

func checkErr(t *testing.T, what string, err error, contains string) {
	t.Helper()
	switch {
	case contains == "" && err != nil:
		t.Errorf("%s: unexpected error %v", what, err)
	case contains != "" && err == nil:
		t.Errorf("%s: no error, want one containing %q", what, contains)
	case contains != "" && !strings.Contains(err.Error(), contains):
		t.Errorf("%s: error %q does not contain %q", what, err, contains)
	}
}

func TestValidateFilestoreProtocol(t *testing.T) {
	for _, tier := range []string{"ZONAL", "REGIONAL", "ENTERPRISE"} {
		if err := ValidateFilestoreProtocol(tier, FilestoreNFSv41); err != nil {
			t.Errorf("%s refuses NFS_V4_1: %v", tier, err)
		}
	}
	for _, tier := range []string{"BASIC_HDD", "BASIC_SSD", "HIGH_SCALE_SSD", "STANDARD"} {
		err := ValidateFilestoreProtocol(tier, FilestoreNFSv41)
		if err == nil || !strings.Contains(err.Error(), "NFS_V4_1 is offered by the ZONAL, REGIONAL and ENTERPRISE tiers, not ") {
			t.Errorf("%s and NFS_V4_1: %v", tier, err)
		}
	}
	for _, tr := range FilestoreTiers() {
		if err := ValidateFilestoreProtocol(tr.Name, FilestoreNFSv3); err != nil {
			t.Errorf("%s refuses NFS_V3: %v", tr.Name, err)
		}
		if err := ValidateFilestoreProtocol(tr.Name, ""); err != nil {
			t.Errorf("%s refuses the default protocol: %v", tr.Name, err)
		}
	}
	if err := ValidateFilestoreProtocol("ZONAL", "SMB"); err == nil || !strings.Contains(err.Error(), `protocol "SMB" is not offered`) {
		t.Errorf("SMB: %v", err)
	}
	if err := ValidateFilestoreProtocol("PLATINUM", FilestoreNFSv3); err == nil {
		t.Error("an unknown tier was accepted")
	}
}
