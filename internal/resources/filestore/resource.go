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
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Real Filestore creation takes many minutes (Enterprise and Regional longer still).
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

type filestoreResource struct {
	p *providerdata.Data
}

var (
	_ resource.ResourceWithConfigure   = (*filestoreResource)(nil)
	_ resource.ResourceWithImportState = (*filestoreResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*filestoreResource)(nil)
)

// NewResource is registered by the provider.
func NewResource() resource.Resource { return &filestoreResource{} }

func (r *filestoreResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_filestore"
}

func (r *filestoreResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.p = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

func (r *filestoreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	inst, err := r.create(ctx, d)
	if err != nil {
		resp.Diagnostics.AddError("Unable to create Filestore instance "+d.name, err.Error())
		// Record an instance the failed create left behind, so it is tracked (Terraform taints it)
		// rather than orphaned; a failed create the API rolled back leaves nothing to record.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer rcancel()
		if left, gerr := r.get(rctx, d.fullName()); gerr == nil {
			resp.Diagnostics.Append(r.flatten(ctx, left, &plan)...)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		return
	}
	resp.Diagnostics.Append(r.flatten(ctx, inst, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// create starts the create and waits for it. The REST client sends no request ID, so when the
// transport resends a create whose first answer was lost the API says ALREADY_EXISTS: the instance
// is then this request's own, and is adopted when it is exactly what the plan asks for.
func (r *filestoreResource) create(ctx context.Context, d *desired) (*filestorepb.Instance, error) {
	c := r.p.Clients
	op, err := c.Filestore.CreateInstance(ctx, &filestorepb.CreateInstanceRequest{Parent: d.parent(), InstanceId: d.name, Instance: d.inst})
	if err == nil {
		return c.WaitFilestoreInstance(ctx, op.Name())
	}
	err = gcp.Classify(err)
	if !gcp.IsAlreadyExists(err) {
		return nil, err
	}
	got, gerr := r.get(ctx, d.fullName())
	if gerr != nil {
		return nil, fmt.Errorf("%w (and reading it back failed: %v)", err, gerr)
	}
	if attr := d.mismatch(got); attr != "" {
		return nil, fmt.Errorf("Filestore instance %s already exists and differs from this configuration in %s; "+
			"import it (terraform import <address> %s) or choose another name", d.fullName(), attr, d.fullName())
	}
	return r.waitReady(ctx, d.fullName())
}

// waitReady polls an instance whose operation is unknown until it is READY.
func (r *filestoreResource) waitReady(ctx context.Context, name string) (*filestorepb.Instance, error) {
	var inst *filestorepb.Instance
	err := poll(ctx, func() (bool, error) {
		got, err := r.get(ctx, name)
		if gcp.IsNotFound(err) {
			return false, fmt.Errorf("Filestore instance %s disappeared while being created: its create operation failed", name)
		}
		if err != nil {
			return false, err
		}
		inst = got
		switch got.GetState() {
		case filestorepb.Instance_READY:
			return true, nil
		case filestorepb.Instance_ERROR:
			return false, fmt.Errorf("Filestore instance %s is in state ERROR: %s", name, got.GetStatusMessage())
		}
		return false, nil
	})
	return inst, err
}

func (r *filestoreResource) get(ctx context.Context, name string) (*filestorepb.Instance, error) {
	inst, err := r.p.Clients.Filestore.GetInstance(ctx, &filestorepb.GetInstanceRequest{Name: name})
	return inst, gcp.Classify(err)
}

func (r *filestoreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	inst, err := r.get(ctx, state.ID.ValueString())
	if gcp.IsNotFound(err) {
		// Deleted outside Terraform: forget it so the next plan creates it again.
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read Filestore instance "+state.ID.ValueString(), err.Error())
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
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	cur, err := r.get(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read Filestore instance "+name, err.Error())
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
		op, err := r.p.Clients.Filestore.UpdateInstance(ctx, &filestorepb.UpdateInstanceRequest{Instance: patch, UpdateMask: &fieldmaskpb.FieldMask{Paths: mask}})
		if err == nil {
			inst, err = r.p.Clients.WaitFilestoreInstance(ctx, op.Name())
		}
		if err != nil {
			resp.Diagnostics.AddError("Unable to update Filestore instance "+name, fmt.Sprintf("updating %s: %v", strings.Join(mask, ", "), gcp.Classify(err)))
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
	// The plan already refused this; a replacement Terraform planned on its own (-replace, taint)
	// ends here, before anything is deleted.
	if state.DeletionProtection.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
			fmt.Sprintf("deletion_protection: Filestore instance %s is protected; set deletion_protection = false and apply before deleting or replacing it.", name))
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.delete(ctx, name); err != nil {
		resp.Diagnostics.AddError("Unable to delete Filestore instance "+name, err.Error())
	}
}

// delete deletes and waits until the instance is gone. A resent delete whose first answer was lost
// finds the instance DELETING or gone; both end in waiting for it to be gone.
func (r *filestoreResource) delete(ctx context.Context, name string) error {
	c := r.p.Clients
	op, err := c.Filestore.DeleteInstance(ctx, &filestorepb.DeleteInstanceRequest{Name: name})
	if err == nil {
		err = c.WaitFilestoreOp(ctx, op.Name(), nil)
	}
	if err = gcp.IgnoreNotFound(err); err == nil {
		return nil
	}
	cur, gerr := r.get(ctx, name)
	if gcp.IsNotFound(gerr) {
		return nil
	}
	if gerr != nil || cur.GetState() != filestorepb.Instance_DELETING {
		return err
	}
	return poll(ctx, func() (bool, error) {
		_, err := r.get(ctx, name)
		if gcp.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// ImportState accepts projects/{project}/locations/{location}/instances/{name},
// {project}/{location}/{name} or {location}/{name} (in the provider's project).
func (r *filestoreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project, location, name string
	if r.p != nil {
		project = r.p.Project
	}
	parts := strings.Split(req.ID, "/")
	switch {
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "locations" && parts[4] == "instances":
		project, location, name = parts[1], parts[3], parts[5]
	case len(parts) == 3:
		project, location, name = parts[0], parts[1], parts[2]
	case len(parts) == 2:
		location, name = parts[0], parts[1]
	default:
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("expected projects/{project}/locations/{location}/instances/{name}, {project}/{location}/{name} or {location}/{name}; got %q", req.ID))
		return
	}
	if err := catalog.ValidateResourceName(name); err != nil || project == "" || location == "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("cannot import %q: need a valid instance name, a location and a project (from the ID or the provider)", req.ID))
		return
	}
	resp.Diagnostics.Append(setImported(ctx, resp, project, location, name)...)
}

func setImported(ctx context.Context, resp *resource.ImportStateResponse, project, location, name string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(resp.State.SetAttribute(ctx, path.Root("id"), instanceID(project, location, name))...)
	diags.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	diags.Append(resp.State.SetAttribute(ctx, path.Root("location"), location)...)
	diags.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	return diags
}
