package bulk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

func TestForEachBoundsCallsAndReportsFailuresSorted(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("n-%02d", 39-i))
	}
	var inFlight, most atomic.Int32
	failed, errs := ForEach(context.Background(), names, 3, func(_ context.Context, n string) error {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		if n[len(n)-1] == '7' {
			return errors.New("boom " + n)
		}
		return nil
	})
	if m := most.Load(); m > 3 {
		t.Errorf("%d calls in flight, want at most 3", m)
	}
	if want := []string{"n-07", "n-17", "n-27", "n-37"}; !slices.Equal(failed, want) {
		t.Errorf("failed = %v, want %v", failed, want)
	}
	if len(errs) != 4 {
		t.Errorf("got %d errors, want 4: %v", len(errs), errs)
	}
}
