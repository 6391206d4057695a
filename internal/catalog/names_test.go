package catalog

import (
	"strings"
	"testing"
)

func TestValidateResourceName(t *testing.T) {
	tests := []struct{ name, contains string }{
		{"a", ""},
		{"cluster-1", ""},
		{"a" + strings.Repeat("b", 62), ""},
		{"a" + strings.Repeat("b", 63), "64 characters long"},
		{"", "empty"},
		{"1cluster", "does not start with a lowercase letter"},
		{"-cluster", "does not start with a lowercase letter"},
		{"cluster-", "ends with a hyphen"},
		{"Cluster", "uppercase"},
		{"my_cluster", "other than lowercase letters, digits and hyphens"},
		{"my.cluster", "other than lowercase letters"},
		{"clüster", "other than lowercase letters"},
	}
	for _, tc := range tests {
		err := ValidateResourceName(tc.name)
		checkErr(t, "ValidateResourceName("+tc.name+")", err, tc.contains)
		if IsValidResourceName(tc.name) != (tc.contains == "") {
			t.Errorf("IsValidResourceName(%q) disagrees", tc.name)
		}
	}
	if ResourceNamePattern != "(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)" {
		t.Error("the pattern must be Compute's, byte for byte, for its error messages")
	}
}

func TestValidateSlurmPartitionName(t *testing.T) {
	tests := []struct{ name, contains string }{
		{"gpu", ""},
		{"a3_mega-1", ""},
		{"Debug", ""},
		{strings.Repeat("p", 40), ""},
		{strings.Repeat("p", 41), "at most 40"},
		{"", "must not be empty"},
		{"default", "reserved"},
		{"DEFAULT", "reserved"},
		{"gpu,cpu", "must not contain spaces, commas"},
		{"gpu cpu", "must not contain spaces"},
		{"a=b", "\"=\""},
		{"1gpu", "must start with a letter"},
		{"gpu.x", "only letters, digits"},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateSlurmPartitionName("+tc.name+")", ValidateSlurmPartitionName(tc.name), tc.contains)
	}
}
