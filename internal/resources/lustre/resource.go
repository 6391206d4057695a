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
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Real Managed Lustre creation takes many minutes; growing capacity too.
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

type lustreResource struct {
	p *providerdata.Data
}

var (
	_ resource.ResourceWithConfigure   = (*lustreResource)(nil)
	_ resource.ResourceWithImportState = (*lustreResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*lustreResource)(nil)
)

// NewResource is registered by the provider.
func NewResource() resource.Resource { return &lustreResource{} }

func (r *lustreResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_lustre"
}

func (r *lustreResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.p = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

func (r *lustreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
		resp.Diagnostics.AddError("Unable to create Managed Lustre instance "+d.name, err.Error())
		// Record an instance the failed create left behind so it is tracked (Terraform taints it)
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

// create starts the create and waits for it. The client sends a request ID, so a resent create
// answers the first one's operation; ALREADY_EXISTS still comes back when an earlier apply's create
// succeeded after its answer was lost, and the instance is then adopted when it is exactly what the
// plan asks for.
func (r *lustreResource) create(ctx context.Context, d *desired) (*wire.Instance, error) {
	c := r.p.Clients
	op, err := c.Lustre.CreateInstance(ctx, d.parent(), d.name, d.inst)
	if err == nil {
		return r.waitInstance(ctx, op, d.fullName())
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
		return nil, fmt.Errorf("Managed Lustre instance %s already exists and differs from this configuration in %s; "+
			"import it (terraform import <address> %s) or choose another name", d.fullName(), attr, d.fullName())
	}
	return r.waitActive(ctx, d.fullName())
}

// waitInstance waits for a create or update operation and returns the instance it produced.
func (r *lustreResource) waitInstance(ctx context.Context, op *wire.Operation, name string) (*wire.Instance, error) {
	inst, err := r.p.Clients.WaitLustreOp(ctx, op)
	if err != nil {
		return nil, err
	}
	if inst == nil {
		return r.get(ctx, name)
	}
	return inst, nil
}

// waitActive polls an instance whose operation is unknown until it is ACTIVE.
func (r *lustreResource) waitActive(ctx context.Context, name string) (*wire.Instance, error) {
	var inst *wire.Instance
	err := poll(ctx, func() (bool, error) {
		got, err := r.get(ctx, name)
		if gcp.IsNotFound(err) {
			return false, fmt.Errorf("Managed Lustre instance %s disappeared while being created: its create operation failed", name)
		}
		if err != nil {
			return false, err
		}
		inst = got
		return got.State == wire.StateActive, nil
	})
	return inst, err
}

func (r *lustreResource) get(ctx context.Context, name string) (*wire.Instance, error) {
	inst, err := r.p.Clients.Lustre.GetInstance(ctx, name)
	return inst, gcp.Classify(err)
}

func (r *lustreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
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
		resp.Diagnostics.AddError("Unable to read Managed Lustre instance "+state.ID.ValueString(), err.Error())
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
		resp.Diagnostics.AddError("Unable to read Managed Lustre instance "+name, err.Error())
		return
	}
	inst := cur
	// deletion_protection lives only in state; everything else that may change is one PATCH.
	if mask := updateMask(cur, want.inst); len(mask) > 0 {
		patch := &wire.Instance{Name: name, CapacityGib: want.inst.CapacityGib, Description: want.inst.Description, Labels: want.inst.Labels}
		op, err := r.p.Clients.Lustre.PatchInstance(ctx, patch, mask)
		if err == nil {
			inst, err = r.waitInstance(ctx, op, name)
		}
		if err != nil {
			resp.Diagnostics.AddError("Unable to update Managed Lustre instance "+name, fmt.Sprintf("updating %s: %v", strings.Join(mask, ", "), gcp.Classify(err)))
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
	// The plan already refused a destroy; a replacement Terraform planned on its own (-replace,
	// taint) ends here, before anything is deleted. The API itself would not refuse.
	if state.DeletionProtection.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
			fmt.Sprintf("deletion_protection: Managed Lustre instance %s is protected; set deletion_protection = false and apply before deleting or replacing it.", name))
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.delete(ctx, name); err != nil {
		resp.Diagnostics.AddError("Unable to delete Managed Lustre instance "+name, err.Error())
	}
}

// delete deletes and waits until the instance is gone; an instance already DELETING (an earlier
// apply's delete) is waited for.
func (r *lustreResource) delete(ctx context.Context, name string) error {
	c := r.p.Clients
	op, err := c.Lustre.DeleteInstance(ctx, name)
	if err == nil {
		_, err = c.WaitLustreOp(ctx, op)
	}
	if err = gcp.IgnoreNotFound(err); err == nil {
		return nil
	}
	cur, gerr := r.get(ctx, name)
	if gcp.IsNotFound(gerr) {
		return nil
	}
	if gerr != nil || cur.State != wire.StateDeleting {
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

// ImportState accepts projects/{project}/locations/{zone}/instances/{name}, {project}/{zone}/{name}
// or {zone}/{name} (in the provider's project). The instance starts with deletion_protection = true.
func (r *lustreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project, zone, name string
	if r.p != nil {
		project = r.p.Project
	}
	parts := strings.Split(req.ID, "/")
	switch {
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "locations" && parts[4] == "instances":
		project, zone, name = parts[1], parts[3], parts[5]
	case len(parts) == 3:
		project, zone, name = parts[0], parts[1], parts[2]
	case len(parts) == 2:
		zone, name = parts[0], parts[1]
	default:
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("expected projects/{project}/locations/{zone}/instances/{name}, {project}/{zone}/{name} or {zone}/{name}; got %q", req.ID))
		return
	}
	if err := catalog.ValidateLustreInstanceID(name); err != nil || project == "" || zone == "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("cannot import %q: need a valid instance name, a zone and a project (from the ID or the provider)", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), instanceID(project, zone, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("zone"), zone)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("deletion_protection"), true)...)
}
