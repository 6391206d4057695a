// Package trainingcluster implements hypercompute_training_cluster: a Slurm cluster's controller
// and login VMs, their bootstrap payload, and the cluster's Slurm settings.
package trainingcluster

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// A create boots the controller and the login VMs and waits for the agent's ready report; an
// update waits for the controller to apply the new configuration.
const (
	defaultCreateTimeout = 30 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 20 * time.Minute
)

// what names the resource in messages: "training cluster <name>".
const what = "training cluster"

type clusterResource struct {
	tfutil.Base
}

var _ tfutil.PlannedResource = (*clusterResource)(nil)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &clusterResource{Base: tfutil.Base{TypeSuffix: "_training_cluster"}}
}

func (r *clusterResource) applier(s *desired) *applier { return &applier{c: r.Provider.Clients, d: s} }

func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.Provider.Quota.Applying() // plans made after this count what exists (PlannedQuota)
	s, diags := toDesired(ctx, &plan)
	if s != nil {
		s.localRuntime = r.Provider.Emulated
	}
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	a := r.applier(s)
	a.creating = true
	res, err := a.apply(ctx, nil)
	if tfutil.IsNotOurs(err) {
		// Another state's cluster, refused before anything was changed: nothing of it is recorded,
		// so this state's destroy never touches it.
		resp.Diagnostics.AddError(fmt.Sprintf("Unable to create %s %s", what, s.name), err.Error())
		return
	}
	if err == nil {
		// The controller reported the configuration applied: the create is done, and the VMs are
		// no longer a half-made create that a retry may adopt.
		if err = a.unmark(ctx); err != nil {
			err = fmt.Errorf("the cluster was created; removing its %s label failed: %w", tfutil.CreateMarkerLabel, err)
		}
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Unable to create %s %s", what, s.name), err.Error())
	}
	// Read back with a fresh context: a create that timed out must still record the VMs it made.
	rctx, rcancel := tfutil.Detached(ctx)
	defer rcancel()
	o, oerr := a.observe(rctx)
	if oerr != nil {
		resp.Diagnostics.AddError("Unable to read "+what+" "+s.name, oerr.Error())
		return
	}
	if o.ctl == nil && len(o.logins) == 0 {
		if err == nil {
			resp.Diagnostics.AddError(what+" vanished", fmt.Sprintf("the controller of %s was created but cannot be read back", s.name))
		}
		return // nothing to record: nothing exists
	}
	if err != nil {
		// Terraform taints what a failed create recorded, so the next apply replaces it; a cluster
		// that never came up holds nothing to protect, so that replacement is not refused.
		plan.DeletionProtection = types.BoolValue(false)
	}
	resp.Diagnostics.Append(fillOutputs(ctx, &plan, o, res)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel, plan, state, ok := tfutil.BeginUpdate[model](ctx, req, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.Provider.Quota.Applying()
	s, diags := toDesired(ctx, &plan)
	if s != nil {
		s.localRuntime = r.Provider.Emulated
	}
	resp.Diagnostics.Append(diags...)
	prior, diags := toDesired(ctx, &state)
	if prior != nil {
		prior.localRuntime = r.Provider.Emulated
	}
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	a := r.applier(s)
	recreate := map[string]bool{}
	for _, g := range prior.groups() {
		a.oldLoginZones = append(a.oldLoginZones, g.zone)
		if now, ok := s.group(g.pool); ok && now.shape != g.shape {
			recreate[g.pool] = true
		}
	}
	res, err := a.apply(ctx, recreate)
	rctx, rcancel := tfutil.Detached(ctx)
	defer rcancel()
	o, oerr := a.observe(rctx)
	if oerr != nil {
		resp.Diagnostics.AddError("Unable to read "+what+" "+s.name, oerr.Error())
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Unable to update %s %s", what, s.name), err.Error())
		if o.ctl == nil {
			// The controller vanished meanwhile: keep the prior state; the next refresh drops it.
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			return
		}
		// Record what really runs (a rejected Slurm configuration was put back, login VMs may be
		// half-changed), so the next plan shows what is still to do.
		resp.Diagnostics.Append(flatten(ctx, r.Provider, &plan, o)...)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	resp.Diagnostics.Append(fillOutputs(ctx, &plan, o, res)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := tfutil.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := &desired{name: state.Name.ValueString(), project: state.Project.ValueString(), zone: state.Zone.ValueString()}
	s.loginZone = stateLoginZone(ctx, &state)
	ap := r.applier(s)
	ap.oldLoginZones = statePoolZones(ctx, &state)
	o, err := ap.observe(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read "+what+" "+s.name, err.Error())
		return
	}
	if o.ctl == nil {
		// The controller is gone: the cluster is, whatever login VMs remain (the next apply's
		// replacement adopts them).
		resp.State.RemoveResource(ctx)
		return
	}
	state.ID = types.StringValue(clusterID(s.project, s.zone, s.name))
	resp.Diagnostics.Append(flatten(ctx, r.Provider, &state, o)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := tfutil.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	if state.DeletionProtection.ValueBool() {
		tfutil.RefuseProtectedDelete(&resp.Diagnostics, what, state.ID.ValueString())
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	s := &desired{name: state.Name.ValueString(), project: state.Project.ValueString(), zone: state.Zone.ValueString()}
	s.loginZone = stateLoginZone(ctx, &state)
	ap := r.applier(s)
	ap.oldLoginZones = statePoolZones(ctx, &state)
	if err := ap.destroy(ctx); err != nil {
		resp.Diagnostics.AddError("Unable to delete "+what+" "+s.name, err.Error())
	}
}

// stateLoginZone is the zone a state's login VMs are in: login.zone, or "" (the cluster's zone, or
// the one the controller's cluster config names) in a state that does not know it: an import, or
// one written before login VMs had a zone of their own.
func stateLoginZone(ctx context.Context, m *model) string {
	var diags diag.Diagnostics
	if l, ok := readObject[loginModel](ctx, m.Login, &diags); ok && known(l.Zone) {
		return l.Zone.ValueString()
	}
	return ""
}

// statePoolZones are the zones of a state's login pools.
func statePoolZones(ctx context.Context, m *model) []string {
	var diags diag.Diagnostics
	var out []string
	for _, g := range poolsDesired(ctx, m, m.Zone.ValueString(), &diags) {
		out = append(out, g.zone)
	}
	return out
}
