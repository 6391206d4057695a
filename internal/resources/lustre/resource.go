// Package lustre implements hypercompute_lustre: the Managed Lustre instance that holds a training
// cluster's datasets and checkpoints.
package lustre

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
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

var (
	_ resource.ResourceWithConfigure   = (*lustreResource)(nil)
	_ resource.ResourceWithImportState = (*lustreResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*lustreResource)(nil)
)

// what names the resource in messages: "Managed Lustre instance <name>".
const what = "Managed Lustre instance"

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &lustreResource{Base: tfutil.Base{TypeSuffix: "_lustre"}}
}

func (r *lustreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	d, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	inst, err := r.create(ctx, d)
	if err != nil {
		resp.Diagnostics.AddError("Unable to create "+what+" "+d.name, err.Error())
		// Record an instance the failed create left behind so it is tracked (Terraform taints it)
		// rather than orphaned; a failed create the API rolled back leaves nothing to record.
		var ok bool
		if inst, ok = tfutil.LeftBehind(ctx, d.fullName(), r.find); !ok {
			return
		}
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// create starts the create and waits for it. The client sends a request ID, so a resent create
// answers the first one's operation; ALREADY_EXISTS still comes back when an earlier apply's create
// succeeded after its answer was lost, and the instance is then adopted when it is exactly what the
// plan asks for.
func (r *lustreResource) create(ctx context.Context, d *desired) (*wire.Instance, error) {
	op, err := r.Provider.Clients.Lustre.CreateInstance(ctx, d.parent(), d.name, d.inst)
	if err == nil {
		return r.waitInstance(ctx, op, d.fullName())
	}
	name := d.fullName()
	return tfutil.AdoptExisting(ctx, err, what, name, r.finder(name), d.mismatch, func(ctx context.Context) (*wire.Instance, error) {
		return tfutil.WaitCreated(ctx, what+" "+name, r.finder(name), func(got *wire.Instance) (bool, error) {
			return got.State == wire.StateActive, nil
		})
	})
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

func (r *lustreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	inst, err := r.find(ctx, state.ID.ValueString())
	if !tfutil.Found(ctx, err, what+" "+state.ID.ValueString(), resp) {
		return
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *lustreResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, plan.Timeouts.Update, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	want, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	cur, err := r.find(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read "+what+" "+name, err.Error())
		return
	}
	inst := cur
	// deletion_protection lives only in state; everything else that may change is one PATCH.
	if mask := updateMask(cur, want.inst); len(mask) > 0 {
		patch := &wire.Instance{Name: name, CapacityGib: want.inst.CapacityGib, Description: want.inst.Description, Labels: want.inst.Labels}
		op, err := r.Provider.Clients.Lustre.PatchInstance(ctx, patch, mask)
		if err == nil {
			inst, err = r.waitInstance(ctx, op, name)
		}
		if err != nil {
			resp.Diagnostics.AddError("Unable to update "+what+" "+name, fmt.Sprintf("updating %s: %v", strings.Join(mask, ", "), gcp.Classify(err)))
			return
		}
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

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

func (r *lustreResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	// The API itself has no deletion protection; the provider is all that refuses.
	if state.DeletionProtection.ValueBool() {
		tfutil.RefuseProtectedDelete(&resp.Diagnostics, what, name)
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	// An instance already DELETING (an earlier apply's delete) is waited for.
	err := tfutil.DeleteAndWait(ctx, func(ctx context.Context) error {
		op, err := r.Provider.Clients.Lustre.DeleteInstance(ctx, name)
		if err == nil {
			_, err = r.Provider.Clients.WaitLustreOp(ctx, op)
		}
		return err
	}, r.finder(name), func(cur *wire.Instance) bool { return cur.State == wire.StateDeleting })
	if err != nil {
		resp.Diagnostics.AddError("Unable to delete "+what+" "+name, err.Error())
	}
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
