// Package nodepartition implements hypercompute_node_partition: one Slurm partition of a training
// cluster and the VMs behind it.
package nodepartition

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Creating GPU VMs and waiting for the controller takes minutes on Google Cloud; a drain waits for
// jobs, which may take hours: raise the update timeout for that.
const (
	defaultCreateTimeout = 45 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 45 * time.Minute
)

// pollMax bounds the interval between two looks at the controller's reports.
const pollMax = 5 * time.Second

type partitionResource struct {
	tfutil.Base
}

var _ tfutil.PlannedResource = (*partitionResource)(nil)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &partitionResource{Base: tfutil.Base{TypeSuffix: "_node_partition"}}
}

var machineOf = catalog.Machine

func (r *partitionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.Provider.Quota.Applying() // plans made after this count what exists (PlannedQuota)
	r.converge(ctx, &plan, &resp.State, &resp.Diagnostics, "create", true)
}

func (r *partitionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Update, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.Provider.Quota.Applying()
	r.converge(ctx, &plan, &resp.State, &resp.Diagnostics, "update", false)
}

// converge reconciles and records what exists afterwards. A failed create that left something
// (the template, the key, VMs kept by allow_partial) is still recorded, so Terraform taints it
// rather than orphaning it; a failed update records the partition as it now is.
func (r *partitionResource) converge(ctx context.Context, plan *model, state *tfsdk.State, diags *diag.Diagnostics, verb string, creating bool) {
	d, dd := toDesired(ctx, plan)
	diags.Append(dd...)
	if diags.HasError() {
		return
	}
	a := &applier{cl: r.Provider.Clients, d: d, poll: pollMax}
	if creating {
		key := ownedKey(d.cluster, d.name)
		done, err := key.BeginCreate()
		defer done()
		if err != nil {
			diags.AddAttributeError(path.Root("name"), "Unable to create node partition "+d.name, "name: "+err.Error())
			return
		}
		a.create = &key
	}
	warnings, err := a.reconcile(ctx)
	if tfutil.IsRefusedCreate(err) {
		// Refused before any change: the partition is someone else's, and this state records nothing.
		diags.AddAttributeError(path.Root("name"), "Unable to create node partition "+d.name, "name: "+err.Error())
		return
	}
	for _, w := range warnings {
		diags.AddWarning("Partition "+d.name+" is smaller than asked", w)
	}
	for _, n := range a.notices.all() {
		diags.AddWarning(n.summary, n.detail)
		if noticeSeen != nil {
			noticeSeen(n.summary, n.detail)
		}
	}
	if err != nil {
		diags.AddError("Unable to "+verb+" node partition "+d.name, err.Error())
	}
	rctx, cancel := tfutil.Detached(ctx)
	defer cancel()
	o, oerr := observe(rctx, r.Provider.Clients, d.cluster, d.name, d.zone)
	if oerr != nil {
		diags.AddError("Unable to read node partition "+d.name, oerr.Error())
		return
	}
	if err != nil && creating && o.gone() && !templateLeft(rctx, a) {
		return // nothing was made: nothing to record
	}
	if creating {
		// Finished, or failed and recorded (tainted) now: either way this state owns the partition
		// from here on, and no other create may take it over.
		if ferr := a.create.Finish(rctx, r.Provider.Clients, nil); ferr != nil {
			diags.AddError("Unable to finish creating node partition "+d.name, ferr.Error())
		}
	}
	out := *plan
	diags.Append(flatten(ctx, r.Provider, d.cluster, o, &out)...)
	if err == nil {
		// The configuration's spelling wins where the cloud holds an equivalent. A partial
		// success keeps the asked-for count here (the apply reached what it could); the VMs that
		// exist are in nodes_total and node_names, and the next refresh shows the shortfall.
		out.Provisioning, out.Placement, out.Labels, out.EffectiveLabels = plan.Provisioning, plan.Placement, plan.Labels, plan.EffectiveLabels
		out.StaticNodeCount, out.MaxDynamicNodeCount = plan.StaticNodeCount, plan.MaxDynamicNodeCount
		out.Zone, out.MachineType, out.Image, out.BootDisk, out.LocalSSDCount = plan.Zone, plan.MachineType, plan.Image, plan.BootDisk, plan.LocalSSDCount
		out.Slurm = plan.Slurm
		if !plan.PlacementPolicy.IsUnknown() {
			out.PlacementPolicy = plan.PlacementPolicy
		}
	}
	diags.Append(state.Set(ctx, &out)...)
}

// templateLeft reports whether a failed create left a template of the partition behind.
func templateLeft(ctx context.Context, a *applier) bool {
	names, err := listTemplates(ctx, a.cl, a.d.project, a.d.prefix)
	return err != nil || len(names) > 0
}

func (r *partitionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ref, ok := tfutil.GetInCluster[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	o, err := observe(ctx, r.Provider.Clients, ref, state.Name.ValueString(), state.Zone.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Unable to read node partition "+state.Name.ValueString(), err.Error())
		return
	}
	if o.gone() {
		// Deleted outside Terraform: forget it so the next plan creates it again.
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(flatten(ctx, r.Provider, ref, o, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

func (r *partitionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, cancel, state, ref, ok := tfutil.BeginInCluster[model](ctx, req.State, tfutil.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	if err := destroy(ctx, r.Provider.Clients, ref, state.Name.ValueString(), ref.Project, state.Zone.ValueString(), pollMax); err != nil {
		resp.Diagnostics.AddError("Unable to delete node partition "+state.Name.ValueString(), err.Error())
	}
}

// ImportState accepts the id, projects/{project}/zones/{zone}/clusters/{cluster}/partitions/{name}.
// Everything else is read back: the Slurm options and counts from the partition's key on the
// controller, provisioning, disks, image and labels from its instance template.
func (r *partitionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, name, err := parsePartitionID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), partitionID(ref, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster"), ref.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
