// Package lustre implements hypercompute_lustre: the Managed Lustre instance that holds a training
// cluster's datasets and checkpoints.
package lustre

import (
	"context"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Real Managed Lustre creation takes many minutes; growing capacity too.
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

type lustreResource struct {
	tfutil.Base
}

var _ tfutil.PlannedResource = (*lustreResource)(nil)

// what names the resource in messages: "Managed Lustre instance <name>".
const what = "Managed Lustre instance"

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &lustreResource{Base: tfutil.Base{TypeSuffix: "_lustre"}}
}

// crud is the resource's Create, Read, Update and Delete: the storage lifecycle it shares with
// Filestore, over Managed Lustre's calls.
func (r *lustreResource) crud() tfutil.StorageResource[model, *desired, *wire.Instance] {
	return tfutil.StorageResource[model, *desired, *wire.Instance]{
		Storage: r.storage(), Fields: (*model).storageFields, ToDesired: toDesired, Names: (*desired).names,
		Insert: r.create, Patch: r.patch, Remove: r.remove, Flatten: r.flatten,
		CreateTimeout: defaultCreateTimeout, UpdateTimeout: defaultUpdateTimeout, DeleteTimeout: defaultDeleteTimeout,
	}
}

func (r *lustreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.crud().Create(ctx, req, resp)
}

func (r *lustreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.crud().Read(ctx, req, resp)
}

func (r *lustreResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.crud().Update(ctx, req, resp)
}

func (r *lustreResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.crud().Delete(ctx, req, resp)
}

// create starts the create and waits for it. The client sends a request ID, so a resent create
// answers the first one's operation; ALREADY_EXISTS still comes back when an earlier apply's create
// succeeded after its answer was lost, and the instance is then adopted when it is exactly what the
// plan asks for. The insert carries the creation marker (see tfutil/label_ownership.go), so that
// only this resource's own unfinished create is adopted.
func (r *lustreResource) create(ctx context.Context, d *desired) (*wire.Instance, error) {
	in := *d.inst
	in.Labels = tfutil.WithCreateMarker(d.inst.Labels)
	op, err := r.Provider.Clients.Lustre.CreateInstance(ctx, d.parent(), d.name, &in)
	return r.storage().Create(ctx, d.fullName(), err, func() (*wire.Instance, error) {
		return r.waitInstance(ctx, op, d.fullName())
	}, d.mismatch)
}

// storage is the lifecycle Managed Lustre shares with Filestore.
func (r *lustreResource) storage() tfutil.Storage[*wire.Instance] {
	return tfutil.Storage[*wire.Instance]{
		What: what, Type: "hypercompute_lustre", Find: r.find,
		Labels:   func(got *wire.Instance) map[string]string { return got.Labels },
		Ready:    func(got *wire.Instance) (bool, error) { return got.State == wire.StateActive, nil },
		Deleting: func(cur *wire.Instance) bool { return cur.State == wire.StateDeleting },
	}
}

// waitInstance waits for a create or update operation and returns the instance it produced.
func (r *lustreResource) waitInstance(ctx context.Context, op *wire.Operation, name string) (*wire.Instance, error) {
	inst, err := r.Provider.Clients.WaitLustreOp(ctx, op)
	if err != nil {
		return nil, err
	}
	if inst == nil {
		return r.find(ctx, name)
	}
	return inst, nil
}

// patch applies in place what differs: capacity, labels, description. deletion_protection lives
// only in state; everything else that may change is one PATCH.
func (r *lustreResource) patch(ctx context.Context, name string, cur *wire.Instance, want *desired) (*wire.Instance, []string, error) {
	mask := updateMask(cur, want.inst)
	if len(mask) == 0 {
		return cur, nil, nil
	}
	patch := &wire.Instance{Name: name, CapacityGib: want.inst.CapacityGib, Description: want.inst.Description, Labels: want.inst.Labels}
	op, err := r.Provider.Clients.Lustre.PatchInstance(ctx, patch, mask)
	if err != nil {
		return nil, mask, err
	}
	inst, err := r.waitInstance(ctx, op, name)
	return inst, mask, err
}

// updateMask lists the fields that differ, in the API's update_mask paths; everything else about
// an instance is immutable (and refused at plan time).
func updateMask(cur, want *wire.Instance) []string {
	var mask []string
	if cur.CapacityGib != want.CapacityGib {
		mask = append(mask, "capacity_gib")
	}
	if cur.Description != want.Description {
		mask = append(mask, "description")
	}
	if !maps.Equal(cur.Labels, want.Labels) {
		mask = append(mask, "labels")
	}
	return mask
}

func (r *lustreResource) remove(ctx context.Context, name string) error {
	op, err := r.Provider.Clients.Lustre.DeleteInstance(ctx, name)
	if err != nil {
		return err
	}
	_, err = r.Provider.Clients.WaitLustreOp(ctx, op)
	return err
}

// ImportState accepts projects/{project}/locations/{zone}/instances/{name}, {project}/{zone}/{name}
// or {zone}/{name} (in the provider's project). The instance starts with deletion_protection = true.
func (r *lustreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project string
	if r.Provider != nil {
		project = r.Provider.Project
	}
	if tfutil.ImportInstance(ctx, req, resp, project, "zone", catalog.ValidateLustreInstanceID) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("deletion_protection"), true)...)
	}
}
