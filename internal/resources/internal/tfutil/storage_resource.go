package tfutil

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// StorageFields is what the shared CRUD reads from a storage resource's Terraform model.
type StorageFields struct {
	ID        string
	Protected bool // deletion_protection
	Timeouts  timeouts.Value
}

// StorageResource is the whole CRUD of a storage resource (Filestore, Managed Lustre) over its
// Terraform model M, its desired instance D and the API's instance T, on the Storage lifecycle.
// The resource supplies its API calls and its model mapping; the order of things (deadline,
// desired, create-or-adopt, leftover, flatten) is written here once.
type StorageResource[M, D, T any] struct {
	Storage[T]
	Fields    func(*M) StorageFields
	ToDesired func(context.Context, *M) (D, diag.Diagnostics)
	// Names gives a desired instance's ID (for messages) and full name.
	Names func(D) (id, name string)
	// Insert creates the instance, with the creation marker among its labels (WithCreateMarker),
	// and waits for it (with Storage.Create).
	Insert func(context.Context, D) (T, error)
	// Patch changes in place what differs between cur and want and returns the instance after and
	// the update mask it sent (none: nothing differed). It also removes a finished create's
	// marker: want never carries it.
	Patch func(ctx context.Context, name string, cur T, want D) (T, []string, error)
	// Remove makes the delete call and waits for its operation.
	Remove  func(ctx context.Context, name string) error
	Flatten func(context.Context, T, *M) diag.Diagnostics
	// Default timeouts when the configuration sets none.
	CreateTimeout, UpdateTimeout, DeleteTimeout time.Duration
}

func (r StorageResource[M, D, T]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := Deadline(ctx, r.Fields(&plan).Timeouts.Create, r.CreateTimeout, &resp.Diagnostics)
	defer cancel()
	d, diags := r.ToDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	id, name := r.Names(d)
	inst, err := r.Insert(ctx, d)
	if err == nil && HasCreateMarker(r.Labels(inst)) {
		// The create finished and the instance was read back: it is no longer a half-made
		// create that a retry may adopt. The patch removes the marker, as d has none.
		if inst, _, err = r.Patch(ctx, name, inst, d); err != nil {
			err = fmt.Errorf("the instance was created; removing its %s label failed: %w", CreateMarkerLabel, err)
		}
	}
	if IsNotOurs(err) {
		// Someone else's instance: nothing of it goes into this state.
		resp.Diagnostics.AddError("Unable to create "+r.What+" "+id, err.Error())
		return
	}
	if err != nil {
		var ok bool
		if inst, ok = r.CreateFailed(ctx, id, name, err, &resp.Diagnostics); !ok {
			return
		}
	}
	resp.Diagnostics.Append(r.Flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r StorageResource[M, D, T]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	inst, ok := r.Storage.Read(ctx, r.Fields(&state).ID, resp)
	if !ok {
		return
	}
	resp.Diagnostics.Append(r.Flatten(ctx, inst, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(ReadNonNullCollections(ctx, &resp.State)...)
}

func (r StorageResource[M, D, T]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := Deadline(ctx, r.Fields(&plan).Timeouts.Update, r.UpdateTimeout, &resp.Diagnostics)
	defer cancel()
	want, diags := r.ToDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := r.Fields(&state).ID
	cur, ok := r.Current(ctx, name, &resp.Diagnostics)
	if !ok {
		return
	}
	inst, mask, err := r.Patch(ctx, name, cur, want)
	if err != nil {
		r.UpdateFailed(name, mask, err, &resp.Diagnostics)
		return
	}
	resp.Diagnostics.Append(r.Flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r StorageResource[M, D, T]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f := r.Fields(&state)
	ctx, cancel := Deadline(ctx, f.Timeouts.Delete, r.DeleteTimeout, &resp.Diagnostics)
	defer cancel()
	r.Storage.Delete(ctx, f.ID, f.Protected, func(ctx context.Context) error { return r.Remove(ctx, f.ID) }, &resp.Diagnostics)
}

// ReadPlan reads a storage resource's ModifyPlan request as ReadPlan does, refusing a destroy
// while deletion_protection is on; check says what to make sure of before turning it off.
func (r StorageResource[M, D, T]) ReadPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	plan, state *M, check string) (hasState, ok bool) {
	return ReadPlan(ctx, req, resp, plan, state, func(state *M) {
		if f := r.Fields(state); f.Protected {
			RefuseProtectedDestroy(&resp.Diagnostics, r.What, f.ID, check)
		}
	})
}
