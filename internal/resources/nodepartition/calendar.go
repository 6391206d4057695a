package nodepartition

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Calendar partitions (model = "calendar"): capacity bought for a window as a calendar-mode future reservation.
// The provider checks the request at plan (it exists in the partition's zone, holds this machine type and enough
// VMs, is not cancelled) and says when its capacity arrives; it creates the template and the partition's key but
// no VM: the controller's agent creates the nodes on the delivered reservation and removes them at the end
// (cc.Calendar, agent/calendar.go).

func checkFutureReservationName(s string) error {
	if !catalog.IsValidResourceName(s) {
		return fmt.Errorf("%q is not a future reservation name (lower-case letters, digits and hyphens, 1-63 characters, starting with a letter)", s)
	}
	return nil
}

func futureReservationPath(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/futureReservations/%s", project, zone, name)
}

// readFutureReservation reads the request and checks it fits the partition; the error names the attribute.
func readFutureReservation(ctx context.Context, cl *gcp.Clients, project, zone, name, machineType string, nodes int) (*computepb.FutureReservation, error) {
	const attr = "provisioning.future_reservation"
	fr, err := cl.FutureReservations.Get(ctx, &computepb.GetFutureReservationRequest{Project: project, Zone: zone, FutureReservation: name})
	if err = gcp.Classify(err); gcp.IsNotFound(err) {
		return nil, fmt.Errorf("%s: future reservation %s does not exist in project %s, zone %s", attr, name, project, zone)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: reading future reservation %s: %w", attr, name, err)
	}
	switch st := fr.GetStatus().GetProcurementStatus(); st {
	case "CANCELLED", "DECLINED", "FAILED":
		return nil, fmt.Errorf("%s: future reservation %s is %s: its capacity will never arrive", attr, name, st)
	}
	if mt := lastSegment(fr.GetSpecificSkuProperties().GetInstanceProperties().GetMachineType()); mt != "" && mt != machineType {
		return nil, fmt.Errorf("%s: future reservation %s holds %s VMs, but the partition's machine_type is %s", attr, name, mt, machineType)
	}
	if n := fr.GetSpecificSkuProperties().GetTotalCount(); int64(nodes) > n {
		return nil, fmt.Errorf("%s: future reservation %s holds %d VMs, but the partition has %d nodes (static_node_count + max_dynamic_node_count)", attr, name, n, nodes)
	}
	if end, err := time.Parse(time.RFC3339, fr.GetTimeWindow().GetEndTime()); err == nil && !time.Now().Before(end) {
		return nil, fmt.Errorf("%s: future reservation %s ended at %s", attr, name, fr.GetTimeWindow().GetEndTime())
	}
	return fr, nil
}

func calendarOf(project, zone string, fr *computepb.FutureReservation) *cc.Calendar {
	return &cc.Calendar{FutureReservation: futureReservationPath(project, zone, fr.GetName()),
		Start: fr.GetTimeWindow().GetStartTime(), End: fr.GetTimeWindow().GetEndTime()}
}

// planCalendar reads the future reservation at plan and says when the capacity arrives.
func (r *partitionResource) planCalendar(ctx context.Context, plan *model, prov provisioningModel, ref *cc.ClusterID, diags *diag.Diagnostics) {
	if r.Provider == nil || r.Provider.Clients == nil || ref == nil || prov.Model.ValueString() != modelCalendar ||
		prov.FutureReservation.IsUnknown() || prov.FutureReservation.IsNull() || plan.MachineType.IsUnknown() ||
		plan.StaticNodeCount.IsUnknown() || plan.MaxDynamicNodeCount.IsUnknown() || plan.Zone.IsUnknown() {
		return
	}
	zone := plan.Zone.ValueString()
	if zone == "" {
		zone = ref.Zone
	}
	nodes := int(plan.StaticNodeCount.ValueInt64() + plan.MaxDynamicNodeCount.ValueInt64())
	fr, err := readFutureReservation(ctx, r.Provider.Clients, ref.Project, zone, prov.FutureReservation.ValueString(), plan.MachineType.ValueString(), nodes)
	if err != nil {
		diags.AddAttributeError(pathOf("provisioning.future_reservation"), "Invalid provisioning.future_reservation", err.Error())
		return
	}
	tw := fr.GetTimeWindow()
	when := "arrives at " + tw.GetStartTime()
	if fr.GetStatus().GetProcurementStatus() == "FULFILLED" {
		when = "arrived at " + tw.GetStartTime()
	}
	diags.AddAttributeWarning(pathOf("provisioning.future_reservation"), "Calendar capacity",
		fmt.Sprintf("provisioning.future_reservation: the capacity of %s (%s, %d × %s) %s and ends at %s. Until then the partition's nodes are drained and jobs wait; "+
			"the cluster's controller creates the %d static node(s) when it is delivered, warns the jobs %s before the end and removes the nodes at the end.",
			fr.GetName(), fr.GetStatus().GetProcurementStatus(), fr.GetSpecificSkuProperties().GetTotalCount(), plan.MachineType.ValueString(),
			when, tw.GetEndTime(), plan.StaticNodeCount.ValueInt64(), cc.CalendarNoticeLead))
}

// flattenCalendar puts the calendar provisioning the partition's key holds into the model.
func flattenCalendar(ctx context.Context, cal cc.Calendar, m *model) diag.Diagnostics {
	prov := provisioningModel{Model: types.StringValue(modelCalendar), Reservation: types.StringNull(),
		FutureReservation: types.StringValue(lastSegment(cal.FutureReservation)), MaxRunDuration: types.StringNull(), TerminationAction: types.StringNull()}
	obj, d := types.ObjectValueFrom(ctx, provisioningAttrTypes, prov)
	m.Provisioning = obj
	return d
}

// providerCreatesNodes: the provider creates the static nodes itself, except in a calendar partition.
func (d *desired) providerCreatesNodes() bool { return d.model != modelCalendar }
