// Package filestore implements hypercompute_filestore: the Filestore instance that holds a training
// cluster's /home.
package filestore

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Real Filestore creation takes many minutes (Enterprise and Regional longer still).
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

type filestoreResource struct {
	tfutil.Base
}

var (
	_ resource.ResourceWithConfigure   = (*filestoreResource)(nil)
	_ resource.ResourceWithImportState = (*filestoreResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*filestoreResource)(nil)
)

// what names the resource in messages: "Filestore instance <name>".
const what = "Filestore instance"

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &filestoreResource{Base: tfutil.Base{TypeSuffix: "_filestore"}}
}

func (r *filestoreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
		// Record an instance the failed create left behind, so it is tracked (Terraform taints it)
		// rather than orphaned; a failed create the API rolled back leaves nothing to record.
		var ok bool
		if inst, ok = tfutil.LeftBehind(ctx, d.fullName(), r.find); !ok {
			return
		}
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// create starts the create and waits for it. The REST client sends no request ID, so when the
// transport resends a create whose first answer was lost the API says ALREADY_EXISTS: the instance
// is then this request's own, and is adopted when it is exactly what the plan asks for.
func (r *filestoreResource) create(ctx context.Context, d *desired) (*filestorepb.Instance, error) {
	c := r.Provider.Clients
	op, err := c.Filestore.CreateInstance(ctx, &filestorepb.CreateInstanceRequest{Parent: d.parent(), InstanceId: d.name, Instance: d.inst})
	if err == nil {
		return c.WaitFilestoreInstance(ctx, op.Name())
	}
	name := d.fullName()
	return tfutil.AdoptExisting(ctx, err, what, name, r.finder(name), d.mismatch, func(ctx context.Context) (*filestorepb.Instance, error) {
		return tfutil.WaitCreated(ctx, what+" "+name, r.finder(name), func(got *filestorepb.Instance) (bool, error) {
			switch got.GetState() {
			case filestorepb.Instance_READY:
				return true, nil
			case filestorepb.Instance_ERROR:
				return false, fmt.Errorf("%s %s is in state ERROR: %s", what, name, got.GetStatusMessage())
			}
			return false, nil
		})
	})
}

func (r *filestoreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
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

func (r *filestoreResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	if mask := updateMask(cur, want.inst); len(mask) > 0 {
		patch := &filestorepb.Instance{
			Name: name, Description: want.inst.Description, Labels: want.inst.Labels,
			FileShares:                []*filestorepb.FileShareConfig{{Name: cur.GetFileShares()[0].GetName(), CapacityGb: want.inst.FileShares[0].CapacityGb}},
			DeletionProtectionEnabled: want.inst.DeletionProtectionEnabled,
			DeletionProtectionReason:  want.inst.DeletionProtectionReason,
		}
		op, err := r.Provider.Clients.Filestore.UpdateInstance(ctx, &filestorepb.UpdateInstanceRequest{Instance: patch, UpdateMask: &fieldmaskpb.FieldMask{Paths: mask}})
		if err == nil {
			inst, err = r.Provider.Clients.WaitFilestoreInstance(ctx, op.Name())
		}
		if err != nil {
			resp.Diagnostics.AddError("Unable to update "+what+" "+name, fmt.Sprintf("updating %s: %v", strings.Join(mask, ", "), gcp.Classify(err)))
			return
		}
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// updateMask lists the fields that differ between the instance and what is wanted, in the API's
// update_mask paths; everything else about an instance is immutable (and refused at plan time).
func updateMask(cur, want *filestorepb.Instance) []string {
	var mask []string
	if cur.GetDescription() != want.GetDescription() {
		mask = append(mask, "description")
	}
	if !maps.Equal(cur.GetLabels(), want.GetLabels()) {
		mask = append(mask, "labels")
	}
	if len(cur.GetFileShares()) == 1 && cur.GetFileShares()[0].GetCapacityGb() != want.FileShares[0].GetCapacityGb() {
		mask = append(mask, "file_shares")
	}
	if cur.GetDeletionProtectionEnabled() != want.GetDeletionProtectionEnabled() {
		mask = append(mask, "deletion_protection_enabled")
	}
	if cur.GetDeletionProtectionReason() != want.GetDeletionProtectionReason() {
		mask = append(mask, "deletion_protection_reason")
	}
	return mask
}

func (r *filestoreResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	if state.DeletionProtection.ValueBool() {
		tfutil.RefuseProtectedDelete(&resp.Diagnostics, what, name)
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	// A resent delete whose first answer was lost finds the instance DELETING or gone; both end in
	// waiting for it to be gone.
	err := tfutil.DeleteAndWait(ctx, func(ctx context.Context) error {
		op, err := r.Provider.Clients.Filestore.DeleteInstance(ctx, &filestorepb.DeleteInstanceRequest{Name: name})
		if err == nil {
			err = r.Provider.Clients.WaitFilestoreOp(ctx, op.Name(), nil)
		}
		return err
	}, r.finder(name), func(cur *filestorepb.Instance) bool { return cur.GetState() == filestorepb.Instance_DELETING })
	if err != nil {
		resp.Diagnostics.AddError("Unable to delete "+what+" "+name, err.Error())
	}
}

// ImportState accepts projects/{project}/locations/{location}/instances/{name},
// {project}/{location}/{name} or {location}/{name} (in the provider's project).
func (r *filestoreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project string
	if r.Provider != nil {
		project = r.Provider.Project
	}
	tfutil.ImportInstance(ctx, req, resp, project, "location", catalog.ValidateResourceName)
}
