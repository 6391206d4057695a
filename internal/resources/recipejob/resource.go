// Package recipejob implements hypercompute_recipe_job: one training run from the recipe catalog,
// submitted to a training cluster through its controller's metadata and reported back through
// the controller's guest attributes.
package recipejob

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// A training run may take days; wait_for = "completed" waits for it, so the create timeout is
// generous. Cancelling takes seconds unless a checkpoint is being written.
const (
	defaultCreateTimeout = 24 * time.Hour
	defaultDeleteTimeout = 15 * time.Minute
)

type jobResource struct {
	tfutil.Base
}

var (
	_ tfutil.PlannedResource              = (*jobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*jobResource)(nil)
)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &jobResource{Base: tfutil.Base{TypeSuffix: "_recipe_job"}}
}

// Create resolves the job against its partition (checked again here: the plan could not when
// the cluster or the partition was created in the same apply), writes it under its key on the
// controller and waits as wait_for says. A job written but failed or timed out is still
// recorded, so Terraform taints it and the next apply replaces it. The key is claimed
// (tfutil.OwnedKey): written marked as an unfinished create, only when it is absent or an
// unfinished create of a job left it, and unmarked once the wait ended.
func (r *jobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	s, diags := readSpec(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	key := ownedKey(s.ref, s.name)
	refused := func(err error) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Unable to create job "+s.name, "name: "+err.Error())
	}
	done, err := key.BeginCreate()
	defer done()
	if err != nil {
		refused(err)
		return
	}
	cl := r.Provider.Clients
	v, err := readController(ctx, cl, s.ref)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Unable to read the cluster", "cluster: "+err.Error())
		return
	}
	if err := key.CheckClaim(v.md); err != nil {
		refused(err)
		return
	}
	p, found, err := v.partition(s.partition)
	if err == nil && !found {
		err = errors.New(tfutil.NoPartitionMessage(s.ref, v.md, s.partition, false))
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("partition"), "Unknown partition", "partition: "+err.Error())
		return
	}
	j, ok := resolve(s, v, p, &resp.Diagnostics)
	if !ok {
		return
	}
	value, err := encodeJob(j)
	if err == nil {
		_, err = key.Claim(ctx, cl, v.inst, value)
	}
	if tfutil.IsRefusedCreate(err) {
		refused(err)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to submit job "+j.Name, err.Error())
		return
	}
	resp.Diagnostics.Append(setResolved(ctx, &plan, s.ref, j)...)
	rep, err := waitFor(ctx, cl, s.ref, j.Name, j.Generation, plan.WaitFor.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Job "+j.Name+" did not become "+plan.WaitFor.ValueString(), err.Error())
	}
	// Waited for, or recorded tainted after a failed wait: either way this state owns the key now.
	if err := key.Finish(ctx, cl, nil); err != nil {
		resp.Diagnostics.AddError("Unable to finish creating job "+j.Name, err.Error())
	}
	if rep.Generation == j.Generation {
		setReport(&plan, j, rep)
	} else {
		setNoReport(&plan, j)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read refreshes the job from the controller's report; a job that ended keeps its final state
// as long as its key is there. A job whose key or cluster is gone is dropped, so the next plan
// submits it again.
func (r *jobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ref, ok := tfutil.GetInCluster[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	cl := r.Provider.Clients
	v, err := readController(ctx, cl, ref)
	if errors.Is(err, tfutil.ErrNoController) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read job "+state.Name.ValueString(), err.Error())
		return
	}
	j, found, err := v.job(state.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Unable to read job "+state.Name.ValueString(), err.Error())
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if state.Generation.ValueString() != j.Generation {
		// Imported, or rewritten outside Terraform: the key is the truth.
		resp.Diagnostics.Append(setSpecFrom(ctx, &state, ref, j)...)
	}
	rep, ok, err := readJobReport(ctx, cl, ref, j.Name)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read job "+j.Name, err.Error())
		return
	}
	switch {
	case ok && rep.Generation == j.Generation:
		setReport(&state, j, rep)
	case state.State.IsNull():
		setNoReport(&state, j)
	}
	if state.WaitFor.IsNull() {
		state.WaitFor = types.StringValue(waitRunning)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

// Update only takes what changes nothing on the cluster (wait_for, timeouts); every other change
// replaces the job (ModifyPlan).
func (r *jobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the job's key; the controller's agent cancels the job (scancel) when it is
// pending or running and deletes its report once the job holds no node, which Delete waits for.
func (r *jobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, cancel, state, ref, ok := tfutil.BeginInCluster[model](ctx, req.State, tfutil.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	name := state.Name.ValueString()
	// A cluster that went first left nothing to run the job.
	waiting, err := tfutil.DropControllerKey(ctx, r.Provider.Clients, ref, cc.JobKey(name), func(ctx context.Context) error {
		return waitGone(ctx, r.Provider.Clients, ref, name)
	})
	switch {
	case err != nil && waiting:
		resp.Diagnostics.AddError("Unable to cancel job "+name, err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Unable to delete job "+name, err.Error())
	}
}

// ImportState accepts the id, projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}, or
// {cluster}/{name} in the provider's project and zone; the spec is read back from the job's key.
func (r *jobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project, zone string
	if r.Provider != nil {
		project, zone = r.Provider.Project, r.Provider.Zone
	}
	ref, name, err := parseImportID(req.ID, project, zone)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), jobID(ref, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster"), ref.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
