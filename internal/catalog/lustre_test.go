package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestLustreTiers(t *testing.T) {
	if got := LustreThroughputs(); !slices.Equal(got, []int64{125, 250, 500, 1000}) {
		t.Errorf("throughputs %v", got)
	}
	want := map[int64][2]int64{125: {72000, 12240000}, 250: {36000, 40032000}, 500: {18000, 20016000}, 1000: {9000, 10008000}}
	for _, tr := range LustreTiers() {
		w := want[tr.Throughput]
		if tr.MinGiB != w[0] || tr.MaxGiB != w[1] {
			t.Errorf("%d: %d-%d, want %v", tr.Throughput, tr.MinGiB, tr.MaxGiB, w)
		}
		if tr.Steps[0].Min != tr.MinGiB || tr.Steps[len(tr.Steps)-1].Max != tr.MaxGiB {
			t.Errorf("%d: steps %v disagree with min/max", tr.Throughput, tr.Steps)
		}
		// Every range's values must be multiples of its step, and the
		// documented maximum must be reachable.
		for _, s := range tr.Steps {
			if s.Min%s.Step != 0 || s.Max%s.Step != 0 {
				t.Errorf("%d: range %+v not aligned", tr.Throughput, s)
			}
		}
		if err := ValidateLustreCapacity(tr.Throughput, tr.MaxGiB); err != nil {
			t.Errorf("documented maximum rejected: %v", err)
		}
	}
	if _, ok := LustreTierFor(0); ok {
		t.Error("0 (dynamic tier) has no capacity table here")
	}
}

func TestValidateLustreCapacity(t *testing.T) {
	tests := []struct {
		throughput, gib int64
		contains        string
	}{
		// 1000 MBps/TiB: multiples of 9,000 up to 1,530,000, then of 72,000.
		{1000, 9000, ""},
		{1000, 8999, "capacity_gib 8999 is below the minimum 9000 for throughput 1000 MBps/TiB"},
		{1000, 18000, ""},
		{1000, 13500, "nearest valid sizes are 9000 and 18000"},
		{1000, 1530000, ""},
		{1000, 1539000, "nearest valid sizes are 1530000 and 1584000"},
		{1000, 1584000, ""},
		{1000, 1602000, "not a valid size"}, // 1,530,000 + 72,000: not a multiple of 72,000
		{1000, 1656000, ""},
		{1000, 10008000, ""},
		{1000, 10080000, "above the maximum 10008000"},
		// 500: 18,000 steps to 3,060,000, then 144,000.
		{500, 18000, ""},
		{500, 9000, "below the minimum 18000"},
		{500, 3060000, ""},
		{500, 3078000, "nearest valid sizes are 3060000 and 3168000"},
		{500, 3168000, ""},
		{500, 20016000, ""},
		{500, 20016001, "above the maximum"},
		// 250: 36,000 steps to 6,120,000, then 288,000.
		{250, 36000, ""},
		{250, 6120000, ""},
		{250, 6156000, "not a valid size"},
		{250, 6336000, ""},
		{250, 40032000, ""},
		{250, 40320000, "above the maximum"},
		// 125: 72,000 steps throughout.
		{125, 72000, ""},
		{125, 36000, "below the minimum 72000"},
		{125, 108000, "nearest valid sizes are 72000 and 144000"},
		{125, 12240000, ""},
		{125, 12312000, "above the maximum 12240000"},
		// Default size of the field's module.
		{250, DefaultLustreCapacityGiB, ""},
		{300, 36000, "per_unit_storage_throughput 300 is not offered; use one of 125, 250, 500, 1000"},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateLustreCapacity", ValidateLustreCapacity(tc.throughput, tc.gib), tc.contains)
	}
}

func TestValidateLustreResize(t *testing.T) {
	checkErr(t, "grow", ValidateLustreResize(500, 18000, 36000), "")
	checkErr(t, "shrink", ValidateLustreResize(500, 36000, 18000), "can only grow")
	checkErr(t, "invalid", ValidateLustreResize(500, 18000, 20000), "not a valid size")
}

func TestValidateLustreNames(t *testing.T) {
	for _, ok := range []string{"lustrefs", "fs1", "A", "ABCdef12"} {
		checkErr(t, "filesystem "+ok, ValidateLustreFilesystem(ok), "")
	}
	checkErr(t, "long", ValidateLustreFilesystem("lustrefs9"), "at most 8")
	checkErr(t, "empty", ValidateLustreFilesystem(""), "must not be empty")
	checkErr(t, "dash", ValidateLustreFilesystem("my-fs"), "only letters and digits")

	for _, ok := range []string{"a", "lustre-1", "x" + strings.Repeat("y", 62)} {
		checkErr(t, "id "+ok, ValidateLustreInstanceID(ok), "")
	}
	for id, want := range map[string]string{
		"":                            "empty",
		"1lustre":                     "start with a lowercase letter",
		"lustre-":                     "ends with a hyphen",
		"Lustre":                      "uppercase",
		"lus_tre":                     "other than lowercase letters",
		"x" + strings.Repeat("y", 63): "64 characters",
	} {
		checkErr(t, "id "+id, ValidateLustreInstanceID(id), want)
	}
}

// The default capacity is valid for exactly the tiers its comment names.
func TestDefaultLustreCapacityTiers(t *testing.T) {
	var valid []int64
	for _, tp := range LustreThroughputs() {
		if ValidateLustreCapacity(tp, DefaultLustreCapacityGiB) == nil {
			valid = append(valid, tp)
		}
	}
	if !slices.Equal(valid, []int64{250, 500, 1000}) {
		t.Errorf("DefaultLustreCapacityGiB is valid for %v; update its comment", valid)
	}
}
