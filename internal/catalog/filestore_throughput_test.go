package catalog

import (
	"math"
	"testing"
)

// The published table's rows, at each tier's minimum and maximum capacity.
func TestFilestoreWriteMBps(t *testing.T) {
	for _, c := range []struct {
		tier  string
		gb    int64
		mibps float64
	}{
		{"BASIC_HDD", 1024, 100}, {"STANDARD", 5000, 100}, {"BASIC_HDD", 10240, 120}, {"BASIC_HDD", 65433, 120},
		{"BASIC_SSD", 2560, 350}, {"PREMIUM", 65433, 350},
		{"ZONAL", 1024, 88}, {"ZONAL", 9984, 858}, {"ZONAL", 10240, 880}, {"ZONAL", 102400, 8800},
		{"REGIONAL", 1024, 100}, {"REGIONAL", 9984, 975}, {"REGIONAL", 10240, 880}, {"REGIONAL", 102400, 8800},
		{"ENTERPRISE", 1024, 100}, {"ENTERPRISE", 10240, 1000},
	} {
		got, ok := FilestoreWriteMBps(c.tier, c.gb)
		want := c.mibps * 1.048576
		if !ok || math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s at %d GB: %.3f MB/s (ok %v), want %.3f (%.0f MiBps)", c.tier, c.gb, got, ok, want, c.mibps)
		}
	}
	for _, c := range []struct {
		tier string
		gb   int64
	}{{"HIGH_SCALE_SSD", 10240}, {"ZONAL", 512}, {"NOPE", 1024}} {
		if got, ok := FilestoreWriteMBps(c.tier, c.gb); ok {
			t.Errorf("%s at %d GB: %.1f MB/s, want no figure", c.tier, c.gb, got)
		}
	}
}
