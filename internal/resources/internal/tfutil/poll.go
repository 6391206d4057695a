package tfutil

import (
	"context"
	"fmt"
	"time"

	compute "cloud.google.com/go/compute/apiv1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Poll calls check until it reports done or fails, backing off from 100 ms to 10 s: the emulator
// answers in milliseconds, real Filestore and Managed Lustre in minutes. It is for the waits no
// operation covers (an adopted instance, a delete an earlier apply started); operations themselves
// are waited on by package gcp.
func Poll(ctx context.Context, check func() (bool, error)) error {
	delay := 100 * time.Millisecond
	for {
		done, err := check()
		if done || err != nil {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 10*time.Second)
	}
}

// WaitCreated polls a resource whose create operation is not at hand (one adopted after
// ALREADY_EXISTS) until ready says it is usable, and returns it. what names it in errors
// ("Filestore instance projects/..."). NotFound means the create that was running failed: the API
// removes what a failed create made.
func WaitCreated[T any](ctx context.Context, what string, get func(context.Context) (T, error), ready func(T) (bool, error)) (T, error) {
	var got T
	err := Poll(ctx, func() (bool, error) {
		v, err := get(ctx)
		if gcp.IsNotFound(err) {
			return false, fmt.Errorf("%s disappeared while being created: its create operation failed", what)
		}
		if err != nil {
			return false, err
		}
		got = v
		return ready(v)
	})
	return got, err
}

// ComputeDone finishes a mutating Compute call: the call's own error, classified, or the outcome
// of its operation.
func ComputeDone(ctx context.Context, cl *gcp.Clients, op *compute.Operation, err error) error {
	if err != nil {
		return gcp.Classify(err)
	}
	_, err = cl.WaitCompute(ctx, op)
	return err
}
