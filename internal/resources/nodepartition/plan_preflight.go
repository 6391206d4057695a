package nodepartition

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// planPreflight runs the reservation and quota checks of preflight at plan, with read-only calls
// (reservations.get, regions.get), so a blueprint whose partition cannot fit fails at `terraform
// plan`, before its network, storage or cluster is created. It needs neither the cluster nor its
// controller: the machine type, zone, provisioning and static count are in the configuration and
// the cluster's id is known at plan. A value unknown at plan skips the check (apply checks
// again). The quota check counts the needs of the other partitions and clusters planned in the
// same operation (providerdata.PlannedQuota), so the partitions of a blueprint are summed against
// the region's one quota; the error lands on whichever resource Terraform plans last. It runs
// only once every input check passed: bad input makes no call.
func (r *partitionResource) planPreflight(ctx context.Context, plan, state *model, hasState, replacing bool, prov provisioningModel, ref *cc.ClusterID, diags *diag.Diagnostics) {
	if r.Provider == nil || r.Provider.Clients == nil || ref == nil || replacing {
		// A replacement deletes the old VMs first; the apply checks what the new ones need.
		return
	}
	known := func(vs ...interface{ IsUnknown() bool }) bool {
		for _, v := range vs {
			if v.IsUnknown() {
				return false
			}
		}
		return true
	}
	if !known(plan.Name, plan.MachineType, plan.Zone, plan.StaticNodeCount, prov.Model, prov.Reservation) || plan.Zone.IsNull() {
		return
	}
	n := int(plan.StaticNodeCount.ValueInt64())
	if hasState && !state.StaticNodeCount.IsNull() && !state.StaticNodeCount.IsUnknown() {
		// The refresh counted the static nodes that exist; only the rest are created.
		n -= int(state.StaticNodeCount.ValueInt64())
	}
	if n <= 0 {
		return
	}
	machine, ok := catalog.Machine(plan.MachineType.ValueString())
	if !ok {
		return
	}
	d := &desired{
		cluster: *ref, name: plan.Name.ValueString(), machine: machine, project: ref.Project,
		zone: plan.Zone.ValueString(), model: prov.Model.ValueString(), reservation: prov.Reservation.ValueString(),
	}
	d.region, _ = catalog.RegionOf(d.zone)

	var errs []string
	reserved := d.model == modelReservation
	if reserved {
		if err := checkReservation(ctx, r.Provider.Clients, d, n); err != nil {
			errs = append(errs, err.Error())
		}
	}
	need := d.quotaNeed(n, reserved)
	others := r.Provider.Quota.Plan(partitionID(*ref, d.name), need)
	short, err := tfutil.QuotaShortfalls(ctx, r.Provider, need, others)
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		// The apply checks again before it creates anything; a failed read is no reason to refuse.
		diags.AddAttributeWarning(pathOf("static_node_count"), "Quota not checked at plan", err.Error()+"; the apply checks it before creating any VM.")
	case len(short) > 0:
		errs = append(errs, quotaError(d, n, short).Error())
	}
	if len(errs) > 0 {
		diags.AddAttributeError(pathOf("static_node_count"), "The partition does not fit",
			"Found at plan, before anything is created:\n- "+strings.Join(errs, "\n- "))
	}
}
