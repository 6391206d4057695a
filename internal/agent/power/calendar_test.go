package power_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A calendar partition's node cannot be resumed before its future reservation is delivered (the error says when
// the capacity arrives); once the emulator's clock reaches the window it is created on the delivered reservation.
func TestResumeCalendarPartitionOnTheDeliveredReservation(t *testing.T) {
	env, pe := setup(t)
	ctx := context.Background()
	cl := pe.Clients
	o, err := cl.InstanceTemplates.Insert(ctx, &computepb.InsertInstanceTemplateRequest{Project: project, InstanceTemplateResource: &computepb.InstanceTemplate{
		Name: proto.String("c-cal-0123456789ab"),
		Properties: &computepb.InstanceProperties{
			MachineType: proto.String("n2-standard-4"),
			Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
			NetworkInterfaces:   []*computepb.NetworkInterface{{Subnetwork: proto.String("projects/" + project + "/regions/" + region + "/subnetworks/n-subnet")}},
			Labels:              map[string]string{"hypercompute-cluster": "c", "hypercompute-partition": "c-cal"},
			ReservationAffinity: &computepb.ReservationAffinity{ConsumeReservationType: proto.String("NO_RESERVATION")},
		},
	}})
	do(t, cl, o, err)
	start := env.Server.Now().Add(30 * time.Hour).Truncate(time.Second)
	o, err = cl.FutureReservations.Insert(ctx, &computepb.InsertFutureReservationRequest{Project: project, Zone: zone, FutureReservationResource: &computepb.FutureReservation{
		Name: proto.String("week"), ReservationMode: proto.String("CALENDAR"), PlanningStatus: proto.String("SUBMITTED"),
		SpecificSkuProperties: &computepb.FutureReservationSpecificSKUProperties{TotalCount: proto.Int64(2),
			InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String("n2-standard-4")}},
		TimeWindow: &computepb.FutureReservationTimeWindow{StartTime: proto.String(start.UTC().Format(time.RFC3339)),
			EndTime: proto.String(start.Add(72 * time.Hour).UTC().Format(time.RFC3339))},
	}})
	do(t, cl, o, err)
	pe.Partitions = append(pe.Partitions, cc.Partition{Name: "cal", MachineType: "n2-standard-4", StaticNodes: 2,
		InstanceTemplate: "projects/" + project + "/global/instanceTemplates/c-cal-0123456789ab",
		Calendar:         &cc.Calendar{FutureReservation: "projects/" + project + "/zones/" + zone + "/futureReservations/week"}})

	err = power.Resume(ctx, pe, "c-cal-0")
	if err == nil || !strings.Contains(err.Error(), "its capacity arrives at "+start.UTC().Format(time.RFC3339)) {
		t.Fatalf("resume before delivery: %v, want an error saying when the capacity arrives", err)
	}
	if got := vms(env); len(got) != 0 {
		t.Fatalf("VMs before delivery: %v", got)
	}
	if err := env.Server.Advance(30 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := power.Resume(ctx, pe, "c-cal-[0-1]"); err != nil {
		t.Fatal(err)
	}
	res, fr, err := power.DeliveredReservation(ctx, cl, *pe.Partitions[2].Calendar)
	if err != nil {
		t.Fatal(err)
	}
	if fr.GetStatus().GetProcurementStatus() != "FULFILLED" {
		t.Fatalf("future reservation status %s", fr.GetStatus().GetProcurementStatus())
	}
	for _, n := range []string{"c-cal-0", "c-cal-1"} {
		inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: n})
		if err != nil {
			t.Fatal(err)
		}
		if ra := inst.GetReservationAffinity(); ra.GetConsumeReservationType() != "SPECIFIC_RESERVATION" || len(ra.GetValues()) != 1 || ra.GetValues()[0] != res {
			t.Errorf("%s affinity = %v, want the delivered reservation %s", n, ra, res)
		}
	}
	r, err := cl.Reservations.Get(ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: res})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetSpecificReservation().GetInUseCount() != 2 {
		t.Errorf("the delivered reservation has %d VMs in use, want 2", r.GetSpecificReservation().GetInUseCount())
	}
}
