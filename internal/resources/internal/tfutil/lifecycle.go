package tfutil

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Deadline bounds a Create, Update or Delete by the resource's timeouts block (timeout is the
// block's Create, Update or Delete method), def when the configuration sets none.
func Deadline(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d, dd := timeout(ctx, def)
	diags.Append(dd...)
	return context.WithTimeout(ctx, d)
}

// Detached is the context for recording what a failed apply left behind: the apply's own context
// may be the thing that ran out, and a resource it created must still reach the state (Terraform
// taints it) rather than be orphaned.
func Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
}

// LeftBehind reads, after a failed create, the resource the create may have left (name), so that
// Create can record it; ok is false when there is none (the API rolled the create back) or it
// cannot be read.
func LeftBehind[T any](ctx context.Context, name string, get func(context.Context, string) (T, error)) (left T, ok bool) {
	rctx, cancel := Detached(ctx)
	defer cancel()
	left, err := get(rctx, name)
	return left, err == nil
}

// Found sorts the answer of Read's get: NotFound (deleted outside Terraform) removes the resource
// from state, so the next plan creates it again; another error is reported against what. It
// reports whether there is something to flatten.
func Found(ctx context.Context, err error, what string, resp *resource.ReadResponse) bool {
	if gcp.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return false
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read "+what, err.Error())
		return false
	}
	return true
}

// DeleteAndWait runs del (the delete call and the wait on its operation) and returns once the
// resource is gone. A delete resent after its first answer was lost finds the resource gone
// (NotFound: done) or still being deleted by the first; deleting says so, and the first delete is
// then waited out.
func DeleteAndWait[T any](ctx context.Context, del func(context.Context) error, get func(context.Context) (T, error), deleting func(T) bool) error {
	err := gcp.IgnoreNotFound(del(ctx))
	if err == nil {
		return nil
	}
	cur, gerr := get(ctx)
	if gcp.IsNotFound(gerr) {
		return nil
	}
	if gerr != nil || !deleting(cur) {
		return err
	}
	return Poll(ctx, func() (bool, error) {
		_, err := get(ctx)
		if gcp.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// AdoptExisting finishes a create call that failed. ALREADY_EXISTS means an earlier try of this
// same create succeeded after its answer was lost (or an earlier apply's did): the resource is
// adopted, and waited for, when it is exactly what the plan asks for (mismatch returns ""), and
// refused otherwise, naming the first attribute that differs. Any other error is returned as the
// API's classified error.
func AdoptExisting[T any](ctx context.Context, createErr error, what, name string,
	get func(context.Context) (T, error), mismatch func(T) string, wait func(context.Context) (T, error)) (T, error) {
	var zero T
	err := gcp.Classify(createErr)
	if !gcp.IsAlreadyExists(err) {
		return zero, err
	}
	got, gerr := get(ctx)
	if gerr != nil {
		return zero, fmt.Errorf("%w (and reading it back failed: %v)", err, gerr)
	}
	if attr := mismatch(got); attr != "" {
		return zero, fmt.Errorf("%s %s already exists and differs from this configuration in %s; "+
			"import it (terraform import <address> %s) or choose another name", what, name, attr, name)
	}
	return wait(ctx)
}
