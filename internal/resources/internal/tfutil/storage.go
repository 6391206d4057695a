package tfutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Storage is the lifecycle the storage resources (Filestore, Managed Lustre) share over their
// instance type T: a create that adopts its own lost answer, a failed create's leftover recorded
// in state, a read that drops what was deleted outside Terraform, and a delete that refuses while
// deletion_protection is on and waits out an earlier delete. Each resource supplies its API calls.
type Storage[T any] struct {
	// What names the instance in messages ("Filestore instance").
	What string
	// Type is the resource type, for the import a refused create names ("hypercompute_filestore").
	Type string
	// Find reads an instance by full name; a missing one is a *NotFoundError.
	Find func(ctx context.Context, name string) (T, error)
	// Ready says whether an adopted instance is usable, or fails for one the API gave up on.
	Ready func(T) (bool, error)
	// Deleting says whether an instance is being deleted (by an earlier delete).
	Deleting func(T) bool
	// Labels reads an instance's labels, for the creation marker (see label_ownership.go).
	Labels func(T) map[string]string
}

func (s Storage[T]) finder(name string) func(context.Context) (T, error) {
	return func(ctx context.Context) (T, error) { return s.Find(ctx, name) }
}

// Create finishes a create call: createErr is the call's own error and wait waits on its
// operation. ALREADY_EXISTS means an earlier try of this create succeeded after its answer was
// lost, or an earlier apply's create stopped before it finished: the instance is adopted when it
// still carries the creation marker and mismatch finds no difference from the plan, and waited
// for. An instance without the marker is someone else's: refused with NotOurs.
func (s Storage[T]) Create(ctx context.Context, name string, createErr error, wait func() (T, error), mismatch func(T) string) (T, error) {
	if createErr == nil {
		return wait()
	}
	if gcp.IsAlreadyExists(gcp.Classify(createErr)) {
		if got, err := s.Find(ctx, name); err == nil && !HasCreateMarker(s.Labels(got)) {
			var zero T
			return zero, NotOurs(s.What, name, s.Type, name)
		}
	}
	return AdoptExisting(ctx, createErr, s.What, name, s.finder(name), mismatch, func(ctx context.Context) (T, error) {
		return WaitCreated(ctx, s.What+" "+name, s.finder(name), s.Ready)
	})
}

// CreateFailed reports a failed create of id and reads what it left behind (name), so that Create
// records it (Terraform taints it) rather than orphaning it; ok is false when nothing is left.
func (s Storage[T]) CreateFailed(ctx context.Context, id, name string, err error, diags *diag.Diagnostics) (left T, ok bool) {
	diags.AddError("Unable to create "+s.What+" "+id, err.Error())
	return LeftBehind(ctx, name, s.Find)
}

// Read reads the instance of a resource; one deleted outside Terraform is removed from state.
func (s Storage[T]) Read(ctx context.Context, name string, resp *resource.ReadResponse) (T, bool) {
	inst, err := s.Find(ctx, name)
	return inst, Found(ctx, err, s.What+" "+name, resp)
}

// Current reads the instance an update starts from.
func (s Storage[T]) Current(ctx context.Context, name string, diags *diag.Diagnostics) (T, bool) {
	inst, err := s.Find(ctx, name)
	if err != nil {
		diags.AddError("Unable to read "+s.What+" "+name, err.Error())
		return inst, false
	}
	return inst, true
}

// UpdateFailed reports a failed update of the fields in mask.
func (s Storage[T]) UpdateFailed(name string, mask []string, err error, diags *diag.Diagnostics) {
	diags.AddError("Unable to update "+s.What+" "+name, fmt.Sprintf("updating %s: %v", strings.Join(mask, ", "), gcp.Classify(err)))
}

// Delete refuses while deletion_protection is on (protected) and otherwise runs del (the delete
// call and the wait on its operation) until the instance is gone. A resent delete whose first
// answer was lost finds the instance deleting or gone; both end in waiting for it to be gone.
func (s Storage[T]) Delete(ctx context.Context, name string, protected bool, del func(context.Context) error, diags *diag.Diagnostics) {
	if protected {
		RefuseProtectedDelete(diags, s.What, name)
		return
	}
	if err := DeleteAndWait(ctx, del, s.finder(name), s.Deleting); err != nil {
		diags.AddError("Unable to delete "+s.What+" "+name, err.Error())
	}
}
