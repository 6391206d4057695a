package tfutil_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func TestGroupKeepsEveryError(t *testing.T) {
	var g tfutil.Group
	var ran atomic.Int32
	for i := range 5 {
		g.Go(func() error {
			ran.Add(1)
			if i%2 == 1 {
				return fmt.Errorf("part %d failed", i)
			}
			return nil
		})
	}
	err := g.Wait()
	if ran.Load() != 5 || err == nil || !strings.Contains(err.Error(), "part 1 failed") || !strings.Contains(err.Error(), "part 3 failed") {
		t.Fatalf("ran %d, err %v: every part runs and every error is kept", ran.Load(), err)
	}
	var clean tfutil.Group
	clean.Go(func() error { return nil })
	if err := clean.Wait(); err != nil {
		t.Fatal(err)
	}
	clean.Go(func() error { return errors.New("second round") })
	if err := clean.Wait(); err == nil || err.Error() != "second round" {
		t.Errorf("a second round after Wait: %v", err)
	}
	if err := tfutil.Parallel([]string{"a", "b"}, func(s string) error { return errors.New(s) }); err == nil || !strings.Contains(err.Error(), "a") || !strings.Contains(err.Error(), "b") {
		t.Errorf("Parallel = %v", err)
	}
}
