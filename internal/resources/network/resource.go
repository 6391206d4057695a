// Package network implements hypercompute_network: a cluster VPC and everything it owns.
package network

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 20 * time.Minute
)

type networkResource struct {
	tfutil.Base
}

var (
	_ tfutil.PlannedResource                = (*networkResource)(nil)
	_ resource.ResourceWithConfigValidators = (*networkResource)(nil)
)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &networkResource{Base: tfutil.Base{TypeSuffix: "_network"}}
}

func (r *networkResource) applierFor(m *model) *applier {
	return &applier{c: r.Provider.Clients, d: &desired{
		project: m.Project.ValueString(), region: m.Region.ValueString(), name: m.Name.ValueString(),
		n: names{base: m.Name.ValueString()},
	}}
}

func (r *networkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}

	r.converge(ctx, &plan, &resp.State, &resp.Diagnostics, true)
}

func (r *networkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Update, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}

	r.converge(ctx, &plan, &resp.State, &resp.Diagnostics, false)
}

// converge applies the plan and records what exists afterwards. On failure the state still gets
// the network's ID and whatever was created, so nothing is orphaned: Terraform marks a failed
// create tainted, and the next apply (or destroy) finds every part by its derived name. The one
// exception is a create refused because the network is someone else's (ownership.go): recording
// it would make this state's destroy delete it.
func (r *networkResource) converge(ctx context.Context, plan *model, state *tfsdk.State, diags *diagnostics, create bool) {
	d, dd := toDesired(ctx, plan)
	diags.Append(dd...)
	if diags.HasError() {
		return
	}
	verb := "update"
	if create {
		verb = "create"
	}
	a := &applier{c: r.Provider.Clients, d: d}
	insert := false
	if create {
		exists, err := a.claim(ctx)
		if err != nil {
			diags.AddError("Unable to create network "+d.name, err.Error())
			return
		}
		insert = !exists
	}
	applyErr := a.apply(ctx, insert)
	if applyErr != nil {
		diags.AddError(fmt.Sprintf("Unable to %s network %s", verb, d.name), applyErr.Error())
		if isNotOurs(applyErr) {
			return
		}
	}
	// Read back with a fresh context: an apply that timed out must still record what it made.
	rctx, cancel := tfutil.Detached(ctx)
	defer cancel()
	out := *plan
	found, rd := a.observe(rctx, &out)
	diags.Append(rd...)
	if !found && !rd.HasError() {
		if applyErr == nil {
			diags.AddError("Network vanished", fmt.Sprintf("network %s was created but cannot be read back", d.name))
		}
		return
	}
	// A network that could not be read back is still recorded, from the plan: dropping it would
	// orphan what this apply made (and a later create would rightly refuse it as finished).
	if applyErr == nil {
		// What the user wrote wins where the API echoes it in another form.
		out.Description = plan.Description
	}
	diags.Append(state.Set(ctx, &out)...)
	if diags.HasError() {
		// A part that could not be read keeps its planned "known after apply"; the error says why,
		// and the state holds null there, never an unknown (which Terraform rejects as an invalid
		// result, hiding the error that matters).
		diags.Append(nullUnknowns(state)...)
	}
}

// nullUnknowns replaces every unknown value left in a state with null.
func nullUnknowns(state *tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	raw, err := tftypes.Transform(state.Raw, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		diags.AddError("Unable to record the network's state", err.Error())
		return diags
	}
	state.Raw = raw
	return diags
}

func (r *networkResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := tfutil.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	if state.Project.IsNull() || state.Project.ValueString() == "" {
		state.Project = types.StringValue(r.Provider.Project)
	}
	if state.Region.IsNull() || state.Region.ValueString() == "" {
		state.Region = types.StringValue(r.Provider.Region)
	}
	a := r.applierFor(&state)
	found, diags := a.observe(ctx, &state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !found {
		// Deleted outside Terraform: forget it so the next plan creates it again.
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

func (r *networkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, cancel, state, ok := tfutil.Begin[model](ctx, req.State, tfutil.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	a := r.applierFor(&state)
	if err := a.destroy(ctx); err != nil {
		resp.Diagnostics.AddError("Unable to delete network "+state.Name.ValueString(), err.Error())
	}
}

// ImportState accepts `projects/{project}/global/networks/{name}`, `{project}/{name}` or `{name}`;
// `{project}/{region}/{name}` names the region of the subnet when it is not the provider's.
func (r *networkResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	project, region, name := r.Provider.Project, r.Provider.Region, ""
	parts := strings.Split(req.ID, "/")
	switch {
	case len(parts) == 5 && parts[0] == "projects" && parts[2] == "global" && parts[3] == "networks":
		project, name = parts[1], parts[4]
	case len(parts) == 3:
		project, region, name = parts[0], parts[1], parts[2]
	case len(parts) == 2:
		project, name = parts[0], parts[1]
	case len(parts) == 1:
		name = parts[0]
	default:
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("expected projects/{project}/global/networks/{name}, {project}/{region}/{name} or {name}; got %q", req.ID))
		return
	}
	if err := catalog.ValidateResourceName(name); err != nil || project == "" || region == "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("cannot import %q: need a valid network name, a project and a region (from the ID or the provider)", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), tfutil.NetworkID(project, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
}
