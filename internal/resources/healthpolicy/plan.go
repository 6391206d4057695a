package healthpolicy

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// ModifyPlan refuses a duplicate create, and a partition the cluster does not have, with one read of the controller,
// instead of failing the apply. A plan that writes nothing (no change) makes no call. The check
// lets through what the same apply creates: a cluster whose controller does not exist yet (apply
// checks again), and a partition a hypercompute_node_partition of this operation plans.
func (r *policyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// A second policy of the configuration with the same name on the same cluster fails here
	// (tfutil.PlanCreate) instead of both writing one key.
	tfutil.PlanCreate(ctx, req, r.Provider, ownedKey, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var plan, state model
	hasState, ok := tfutil.ReadPlan(ctx, req, resp, &plan, &state, nil)
	if !ok || r.Provider == nil || (hasState && req.Plan.Raw.Equal(req.State.Raw)) {
		return
	}
	if plan.Cluster.IsUnknown() || plan.Partitions.IsNull() || !listKnown(plan.Partitions) {
		return
	}
	ref, err := cc.ParseClusterID(plan.Cluster.ValueString())
	if err != nil {
		return // the cluster attribute's validator reports it
	}
	names := strings_(ctx, plan.Partitions, &resp.Diagnostics)
	if len(names) == 0 || resp.Diagnostics.HasError() {
		return
	}
	inst, err := readController(ctx, r.Provider.Clients, ref)
	if errors.Is(err, tfutil.ErrNoController) {
		return
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Unable to read the cluster", "cluster: "+err.Error())
		return
	}
	md := tfutil.MetadataMap(inst.GetMetadata())
	if name := tfutil.MissingPartition(&r.Provider.Partitions, ref, md, names); name != "" {
		addNoPartition(&resp.Diagnostics, ref, md, names, name, true)
	}
}

// addNoPartition reports the partition name of the list names that the cluster does not have, on
// its element of the partitions attribute.
func addNoPartition(diags *diag.Diagnostics, ref cc.ClusterID, md map[string]string, names []string, name string, atPlan bool) {
	i := slices.Index(names, name)
	diags.AddAttributeError(path.Root("partitions").AtListIndex(i), "Unknown partition",
		fmt.Sprintf("partitions[%d]: %s", i, tfutil.NoPartitionMessage(ref, md, name, atPlan)))
}
