package instances_test

import (
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
)

func (e *env) futureReservations() *compute.FutureReservationsClient {
	c, err := compute.NewFutureReservationsRESTClient(e.ctx, option.WithEndpoint(e.url+"/"), option.WithoutAuthentication())
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func calendarRequest(name, mt string, count int64, start time.Time, days int) *computepb.FutureReservation {
	return &computepb.FutureReservation{
		Name: proto.String(name), ReservationMode: proto.String("CALENDAR"), PlanningStatus: proto.String("SUBMITTED"),
		DeploymentType: proto.String("DENSE"), AutoDeleteAutoCreatedReservations: proto.Bool(true),
		SpecificSkuProperties: &computepb.FutureReservationSpecificSKUProperties{TotalCount: proto.Int64(count),
			InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(mt)}},
		TimeWindow: &computepb.FutureReservationTimeWindow{StartTime: proto.String(start.UTC().Format(time.RFC3339)),
			EndTime: proto.String(start.Add(time.Duration(days) * 24 * time.Hour).UTC().Format(time.RFC3339))},
	}
}

// A calendar-mode request is approved and locked, delivered as a reservation at its start time on the emulator's
// clock (moved by the test), consumed by a VM, and at its end the reservation is deleted and the VM stopped.
func TestFutureReservationCalendarLifecycle(t *testing.T) {
	e := newEnv(t)
	fr := e.futureReservations()
	start := e.srv.Now().Add(48 * time.Hour).Truncate(time.Second)
	insert := func(r *computepb.FutureReservation) error {
		return e.wait(fr.Insert(e.ctx, &computepb.InsertFutureReservationRequest{Project: project, Zone: zone, FutureReservationResource: r}))
	}
	get := func(name string) *computepb.FutureReservation {
		t.Helper()
		got, err := fr.Get(e.ctx, &computepb.GetFutureReservationRequest{Project: project, Zone: zone, FutureReservation: name})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := insert(calendarRequest("fr", "e2-standard-4", 2, start, 7)); err != nil {
		t.Fatal(err)
	}
	// Bad requests, each refused naming the field.
	past := calendarRequest("past", "e2-standard-4", 1, e.srv.Now().Add(-time.Hour), 2)
	wantHTTPError(t, insert(past), 400, "The start time must be in the future")
	wantHTTPError(t, insert(calendarRequest("short", "e2-standard-4", 1, start, 0)), 400, "end time must be after the start time")
	wantHTTPError(t, insert(calendarRequest("long", "e2-standard-4", 1, start, 120)), 400, "lasts from 1 to 90 days")
	wantHTTPError(t, insert(calendarRequest("zero", "e2-standard-4", 0, start, 2)), 400, "totalCount")
	wantHTTPError(t, insert(calendarRequest("nomt", "e2-bogus-3", 1, start, 2)), 400, "Machine type with name 'e2-bogus-3' does not exist")
	wantHTTPError(t, insert(calendarRequest("fr", "e2-standard-4", 1, start, 2)), 409, "already exists")

	got := get("fr")
	if got.GetStatus().GetProcurementStatus() != "APPROVED" || got.GetStatus().GetLockTime() == "" || got.GetKind() != "compute#futureReservation" || got.GetId() == 0 {
		t.Fatalf("a submitted calendar request = %v, want APPROVED with a lock time", got)
	}
	// Locked at approval: it can be neither cancelled nor deleted before its end.
	_, err := fr.Cancel(e.ctx, &computepb.CancelFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "fr"})
	wantHTTPError(t, err, 400, "cannot be cancelled after its lock time")
	_, err = fr.Delete(e.ctx, &computepb.DeleteFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "fr"})
	wantHTTPError(t, err, 400, "can only be deleted after it is cancelled or has reached its end time")

	// Before the start nothing is delivered; a VM naming the reservation-to-be is refused.
	it := e.resv.List(e.ctx, &computepb.ListReservationsRequest{Project: project, Zone: zone})
	if r, err := it.Next(); err != iterator.Done {
		t.Fatalf("a reservation exists before the window: %v %v", r, err)
	}
	if err := e.srv.Advance(48 * time.Hour); err != nil {
		t.Fatal(err)
	}
	got = get("fr")
	if got.GetStatus().GetProcurementStatus() != "FULFILLED" || len(got.GetStatus().GetAutoCreatedReservations()) != 1 || got.GetStatus().GetFulfilledCount() != 2 {
		t.Fatalf("at the start: %v, want FULFILLED with one auto-created reservation", got.GetStatus())
	}
	resName := lastPart(got.GetStatus().GetAutoCreatedReservations()[0])
	res, err := e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: resName})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetSpecificReservation().GetCount() != 2 || !res.GetSpecificReservationRequired() || res.GetStatus() != "READY" {
		t.Fatalf("delivered reservation = %v", res)
	}
	v := vm("a", "e2-standard-4")
	v.ReservationAffinity = &computepb.ReservationAffinity{ConsumeReservationType: proto.String("SPECIFIC_RESERVATION"),
		Key: proto.String("compute.googleapis.com/reservation-name"), Values: []string{resName}}
	e.mustInsert(v)

	// At its end the reservation goes and the VM on it stops; the request may now be deleted.
	if err := e.srv.Advance(7 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: resName}); httpCode(err) != 404 {
		t.Errorf("the delivered reservation after the end: %v, want 404", err)
	}
	if st := e.mustGet("a").GetStatus(); st != "TERMINATED" {
		t.Errorf("the VM on the calendar reservation after its end is %s, want TERMINATED", st)
	}
	// The reservation's hold on 2 VMs' vCPUs is released; the stopped VM keeps its own, as every stopped VM
	// does in the emulator's quota model.
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 4 {
		t.Errorf("CPUS usage after the end = %v, want 4 (the reservation's 8 released)", q.Usage)
	}
	e.mustWait(fr.Delete(e.ctx, &computepb.DeleteFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "fr"}))
}

// A draft is edited, submitted by updating planningStatus, cancelled before its lock time (default mode locks at
// its start), and deleted; aggregated lists carry it under its zone.
func TestFutureReservationDraftSubmitCancel(t *testing.T) {
	e := newEnv(t)
	fr := e.futureReservations()
	start := e.srv.Now().Add(72 * time.Hour).Truncate(time.Second)
	r := calendarRequest("d", "e2-standard-4", 1, start, 3)
	r.ReservationMode, r.PlanningStatus = proto.String("DEFAULT"), proto.String("DRAFT")
	e.mustWait(fr.Insert(e.ctx, &computepb.InsertFutureReservationRequest{Project: project, Zone: zone, FutureReservationResource: r}))
	update := func(mask string, body *computepb.FutureReservation) error {
		return e.wait(fr.Update(e.ctx, &computepb.UpdateFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "d",
			UpdateMask: proto.String(mask), FutureReservationResource: body}))
	}
	if err := update("specificSkuProperties.totalCount", &computepb.FutureReservation{SpecificSkuProperties: &computepb.FutureReservationSpecificSKUProperties{TotalCount: proto.Int64(4)}}); err != nil {
		t.Fatal(err)
	}
	wantHTTPError(t, update("name", &computepb.FutureReservation{Name: proto.String("x")}), 400, "updateMask")
	if err := update("planningStatus", &computepb.FutureReservation{PlanningStatus: proto.String("SUBMITTED")}); err != nil {
		t.Fatal(err)
	}
	got, err := fr.Get(e.ctx, &computepb.GetFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetSpecificSkuProperties().GetTotalCount() != 4 || got.GetStatus().GetProcurementStatus() != "APPROVED" {
		t.Fatalf("after update and submit: %v", got)
	}
	wantHTTPError(t, update("description", &computepb.FutureReservation{Description: proto.String("late")}), 400, "cannot be updated in status APPROVED")
	e.mustWait(fr.Cancel(e.ctx, &computepb.CancelFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "d"}))
	agg := fr.AggregatedList(e.ctx, &computepb.AggregatedListFutureReservationsRequest{Project: project})
	found := false
	for {
		p, err := agg.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.Value.GetFutureReservations() {
			found = found || (p.Key == "zones/"+zone && f.GetName() == "d" && f.GetStatus().GetProcurementStatus() == "CANCELLED")
		}
	}
	if !found {
		t.Error("aggregatedList does not show the cancelled request under its zone")
	}
	// A cancelled request is never delivered.
	if err := e.srv.Advance(80 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if it := e.resv.List(e.ctx, &computepb.ListReservationsRequest{Project: project, Zone: zone}); true {
		if r, err := it.Next(); err != iterator.Done {
			t.Fatalf("a cancelled request delivered %v (%v)", r, err)
		}
	}
	e.mustWait(fr.Delete(e.ctx, &computepb.DeleteFutureReservationRequest{Project: project, Zone: zone, FutureReservation: "d"}))
}

func lastPart(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[i+1:]
		}
	}
	return s
}
