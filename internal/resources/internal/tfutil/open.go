package tfutil

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Resource is what every hypercompute resource asserts it implements, beside resource.Resource:
// Base gives Configure, and each resource imports by ID.
type Resource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
}

// PlannedResource is a Resource that also adjusts its plan (ModifyPlan in its plan.go).
type PlannedResource interface {
	Resource
	resource.ResourceWithModifyPlan
}

// Source is a request's plan, state or config (tfsdk.Plan, tfsdk.State, tfsdk.Config).
type Source interface {
	Get(ctx context.Context, target any) diag.Diagnostics
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// Get reads src into a new M; ok is false when diags holds an error afterwards.
func Get[M any](ctx context.Context, src Source, diags *diag.Diagnostics) (m M, ok bool) {
	diags.Append(src.Get(ctx, &m)...)
	return m, !diags.HasError()
}

// Op names the operation whose timeout Begin reads from the model's timeouts block.
type Op int

const (
	Create Op = iota
	Update
	Delete
)

// Begin opens an operation: it reads src (req.Plan for a create or an update, req.State for a
// delete) into a new M and bounds ctx by the op's timeout from the model's "timeouts" attribute,
// def when unset. ok is false when diags holds an error, and the caller returns; cancel is always
// safe to defer.
func Begin[M any](ctx context.Context, src Source, op Op, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, M, bool) {
	m, ok := Get[M](ctx, src, diags)
	if !ok {
		return ctx, func() {}, m, false
	}
	var t timeouts.Value
	diags.Append(src.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	if diags.HasError() {
		return ctx, func() {}, m, false
	}
	timeout := map[Op]func(context.Context, time.Duration) (time.Duration, diag.Diagnostics){
		Create: t.Create, Update: t.Update, Delete: t.Delete,
	}[op]
	ctx, cancel := Deadline(ctx, timeout, def, diags)
	return ctx, cancel, m, !diags.HasError()
}

// GetInCluster is Get for a resource that lives in a training cluster: it also parses the
// model's "cluster" attribute (the cluster's ID); one that is not an ID is an "Invalid state"
// error.
func GetInCluster[M any](ctx context.Context, src Source, diags *diag.Diagnostics) (M, cc.ClusterID, bool) {
	m, ok := Get[M](ctx, src, diags)
	if !ok {
		return m, cc.ClusterID{}, false
	}
	ref, ok := clusterOf(ctx, src, diags)
	return m, ref, ok
}

// BeginInCluster is Begin for a resource that lives in a training cluster, with the cluster
// parsed as GetInCluster does.
func BeginInCluster[M any](ctx context.Context, src Source, op Op, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, M, cc.ClusterID, bool) {
	ctx, cancel, m, ok := Begin[M](ctx, src, op, def, diags)
	if !ok {
		return ctx, cancel, m, cc.ClusterID{}, false
	}
	ref, ok := clusterOf(ctx, src, diags)
	return ctx, cancel, m, ref, ok
}

func clusterOf(ctx context.Context, src Source, diags *diag.Diagnostics) (cc.ClusterID, bool) {
	var id types.String
	diags.Append(src.GetAttribute(ctx, path.Root("cluster"), &id)...)
	if diags.HasError() {
		return cc.ClusterID{}, false
	}
	ref, err := cc.ParseClusterID(id.ValueString())
	if err != nil {
		diags.AddError("Invalid state", "cluster: "+err.Error())
		return cc.ClusterID{}, false
	}
	return ref, true
}

// BeginUpdate is Begin for an update that needs the prior state beside the plan: both are read,
// and the deadline is the plan's update timeout.
func BeginUpdate[M any](ctx context.Context, req resource.UpdateRequest, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, M, M, bool) {
	ctx, cancel, plan, ok := Begin[M](ctx, req.Plan, Update, def, diags)
	state, stateOK := Get[M](ctx, req.State, diags)
	return ctx, cancel, plan, state, ok && stateOK
}
