package bulk

import (
	"context"
	"sort"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Parallelism is the per-VM calls kept in flight by callers of ForEach that have no reason to pick another.
const Parallelism = 64

// ForEach runs fn for every name, at most parallel at a time, and returns the names it failed for (sorted)
// and fn's errors (in the order they came).
func ForEach(ctx context.Context, names []string, parallel int, fn func(context.Context, string) error) ([]string, []error) {
	sem := make(chan struct{}, parallel)
	var mu sync.Mutex
	var failed []string
	var errs []error
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, n); err != nil {
				mu.Lock()
				failed = append(failed, n)
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(failed)
	return failed, errs
}

// DeleteVM deletes one VM and waits for it; a VM that is already gone counts as deleted.
func DeleteVM(ctx context.Context, cl *gcp.Clients, project, zone, name string) error {
	op, err := cl.Instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: name, RequestId: gcp.NewRequestIDPtr()})
	if err == nil {
		_, err = cl.WaitCompute(ctx, op)
	}
	return gcp.IgnoreNotFound(err)
}
