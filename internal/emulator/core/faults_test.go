package core

import (
	"slices"
	"testing"
)

// skipFirst lets the first matching calls through and fails every one after them at rate 1.
func TestErrorRateSkipFirst(t *testing.T) {
	f := NewFaults(1)
	if err := f.Apply(FaultSpec{ErrorRates: []ErrorRate{{Method: "compute.networks.get", Rate: 1, Code: 503, SkipFirst: 2}}}); err != nil {
		t.Fatal(err)
	}
	var got []bool
	for range 4 {
		got = append(got, f.SyncError("compute.networks.get") != nil)
	}
	if want := []bool{false, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("failed calls = %v, want %v", got, want)
	}
	if f.SyncError("compute.networks.list") != nil {
		t.Error("a call of another method failed")
	}
	if err := (FaultSpec{ErrorRates: []ErrorRate{{Method: "compute.*", Rate: 1, SkipFirst: -1}}}).Validate(); err == nil {
		t.Error("a negative skipFirst was accepted")
	}
}
