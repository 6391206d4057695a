// Package healthpolicy implements hypercompute_health_policy: health checks, repairs and their
// limits for a training cluster, written to its controller's metadata and applied by the
// controller's agent (internal/agent/health_*.go).
package healthpolicy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The controller applies a policy in one pass of its agent (seconds); a slurmctld restart on a
// loaded controller takes longer.
const defaultTimeout = 10 * time.Minute

type policyResource struct {
	tfutil.Base
}

var (
	_ tfutil.PlannedResource              = (*policyResource)(nil)
	_ resource.ResourceWithValidateConfig = (*policyResource)(nil)
)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &policyResource{Base: tfutil.Base{TypeSuffix: "_health_policy"}}
}

// ValidateConfig checks the whole policy at plan, without an API call; messages start with the
// attribute they are about.
func (r *policyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	refuseZeros(&m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !m.known() {
		return
	}
	p, diags := m.expand(ctx)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	if err := cc.ValidateHealthPolicy(p); err != nil {
		addPolicyError(&resp.Diagnostics, err)
	}
}

// addPolicyError reports a clusterconfig validation error on the attribute its text starts with.
func addPolicyError(diags *diag.Diagnostics, err error) {
	msg := err.Error()
	top := msg
	if i := strings.IndexAny(top, " .[:"); i > 0 {
		top = top[:i]
	}
	switch top {
	case "name", "checks", "escalation", "interval_seconds", "limits", "partitions":
		diags.AddAttributeError(path.Root(top), "Invalid health policy", msg)
	default:
		diags.AddError("Invalid health policy", msg)
	}
}

func (r *policyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.write(ctx, &plan, &resp.Diagnostics, true)
	if plan.ID.IsUnknown() {
		return // nothing was written (or the key is someone else's): nothing to record
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *policyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Update, defaultTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	r.write(ctx, &plan, &resp.Diagnostics, false)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// write checks the policy against the cluster (its partitions exist), writes it under its key on
// the controller and waits for the controller to report it applied. The model gets id and
// generation once the key is written, so a failed wait still records the resource (tainted).
// A create claims the key (tfutil.OwnedKey): it writes it marked as unfinished, and only when the
// key is absent or an unfinished create of a policy left it, then removes the marker at its end.
func (r *policyResource) write(ctx context.Context, m *model, diags *diag.Diagnostics, create bool) {
	ref, err := cc.ParseClusterID(m.Cluster.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("cluster"), "Invalid cluster", "cluster: "+err.Error())
		return
	}
	p, d := m.expand(ctx)
	diags.Append(d...)
	if diags.HasError() {
		return
	}
	value, err := cc.EncodeHealthPolicy(p)
	if err != nil {
		addPolicyError(diags, err)
		return
	}
	key := ownedKey(ref, p.Name)
	refused := func(err error) {
		diags.AddAttributeError(path.Root("name"), "Unable to create health policy "+p.Name, "name: "+err.Error())
	}
	if create {
		done, err := key.BeginCreate()
		defer done()
		if err != nil {
			refused(err)
			return
		}
	}
	cl := r.Provider.Clients
	inst, err := readController(ctx, cl, ref)
	if err != nil {
		diags.AddAttributeError(path.Root("cluster"), "Unable to read the cluster", "cluster: "+err.Error())
		return
	}
	md := tfutil.MetadataMap(inst.GetMetadata())
	if create {
		if err := key.CheckClaim(md); err != nil {
			refused(err)
			return
		}
	}
	// The plan checked this already, but a partition may have gone since.
	if name := tfutil.MissingPartition(nil, ref, md, p.Partitions); name != "" {
		addNoPartition(diags, ref, md, p.Partitions, name, false)
		return
	}
	s := string(value)
	if create {
		_, err = key.Claim(ctx, cl, inst, s)
	} else {
		_, err = tfutil.SetMetadataKey(ctx, cl, tfutil.ControllerVM(ref), inst, key.Key, &s)
	}
	if tfutil.IsRefusedCreate(err) {
		refused(err)
		return
	}
	if err != nil {
		diags.AddError("Unable to write health policy "+p.Name, err.Error())
		return
	}
	m.ID = types.StringValue(policyID(ref, p.Name))
	m.Generation = types.StringValue(p.Generation)
	err = waitApplied(ctx, cl, ref, p.Name, p.Generation)
	if create {
		// Applied, or recorded tainted after a failed wait: either way this state owns the key now.
		if ferr := key.Finish(ctx, cl, nil); ferr != nil {
			diags.AddError("Unable to finish creating health policy "+p.Name, ferr.Error())
		}
	}
	if err != nil {
		diags.AddError("Health policy "+p.Name+" was not applied", err.Error())
	}
}

// Read drops a policy whose key or cluster is gone, so the next plan writes it again; a key
// rewritten outside Terraform (or imported) is read back.
func (r *policyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ref, ok := tfutil.GetInCluster[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	inst, err := readController(ctx, r.Provider.Clients, ref)
	if errors.Is(err, tfutil.ErrNoController) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read health policy "+state.Name.ValueString(), err.Error())
		return
	}
	raw, ok := tfutil.MetadataMap(inst.GetMetadata())[cc.HealthPolicyKey(state.Name.ValueString())]
	if !ok {
		resp.State.RemoveResource(ctx)
		return
	}
	p, err := cc.DecodeHealthPolicy([]byte(raw))
	if err != nil {
		resp.Diagnostics.AddError("Unable to read health policy "+state.Name.ValueString(), fmt.Sprintf("metadata key %s on the controller: %v", cc.HealthPolicyKey(state.Name.ValueString()), err))
		return
	}
	if p.Generation != state.Generation.ValueString() {
		state.flatten(ref, p)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

// Delete removes the key and waits until the controller dropped the policy (its report is gone);
// the nodes stop running its checks and no repair starts any more.
func (r *policyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, cancel, state, ref, ok := tfutil.BeginInCluster[model](ctx, req.State, tfutil.Delete, defaultTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	name := state.Name.ValueString()
	// A cluster that went first took the policy with it.
	_, err := tfutil.DropControllerKey(ctx, r.Provider.Clients, ref, cc.HealthPolicyKey(name), func(ctx context.Context) error {
		return waitDropped(ctx, r.Provider.Clients, ref, name)
	})
	if err != nil {
		resp.Diagnostics.AddError("Unable to delete health policy "+name, err.Error())
	}
}

// ImportState takes projects/{project}/zones/{zone}/clusters/{cluster}/healthPolicies/{name};
// Read fills the rest from the policy's key.
func (r *policyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, name, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), policyID(ref, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster"), ref.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

func readController(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID) (*computepb.Instance, error) {
	inst, _, err := tfutil.ReadController(ctx, cl, ref)
	return inst, err
}

func reportWait(cl *gcp.Clients, ref cc.ClusterID) tfutil.ReportWait {
	// A failed pass of the controller (another partition's bad configuration) is not this
	// policy's failure: the agent retries.
	return tfutil.ReportWait{Clients: cl, VM: tfutil.ControllerVM(ref), Max: 2 * time.Second, IgnoreFailure: true, Retry: gcp.IsRateLimited}
}

// waitApplied waits until the controller reports the policy's generation applied.
func waitApplied(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name, gen string) error {
	var last string
	lastRep, err := reportWait(cl, ref).Until(ctx, func(rep tfutil.Report) (bool, error) {
		last = rep.Attrs[cc.HealthPolicyAttr(name)]
		return last == gen, nil
	})
	if err != nil && ctx.Err() != nil {
		what := "no report of this policy yet: is the controller's agent running? See its serial console"
		if last != "" {
			what = "it still reports generation " + last
		}
		if lastRep.Any() {
			what += "; the controller reports " + lastRep.String()
		}
		return fmt.Errorf("timed out waiting for the controller %s to apply generation %s of health policy %s; %s", tfutil.ControllerVM(ref).Name, gen, name, what)
	}
	return err
}

// waitDropped waits until the controller no longer reports the policy.
func waitDropped(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name string) error {
	_, err := reportWait(cl, ref).Until(ctx, func(rep tfutil.Report) (bool, error) {
		_, ok := rep.Attrs[cc.HealthPolicyAttr(name)]
		return !ok, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for the controller %s to drop health policy %s; is its agent running?", tfutil.ControllerVM(ref).Name, name)
	}
	return err
}
