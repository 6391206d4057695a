package instances_test

import (
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// A reservation made through the API holds its VMs' vCPUs in quota, is consumed by a VM, resizes (never below
// the VMs in use), changes its share settings by updateMask and gives its quota back when deleted.
func TestReservationInsertResizeUpdateDelete(t *testing.T) {
	e := newEnv(t)
	res := func(name, mt string, count int64) *computepb.Reservation {
		return &computepb.Reservation{Name: proto.String(name), SpecificReservationRequired: proto.Bool(true),
			SpecificReservation: &computepb.AllocationSpecificSKUReservation{Count: proto.Int64(count),
				InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(mt)}}}
	}
	insert := func(r *computepb.Reservation) error {
		return e.wait(e.resv.Insert(e.ctx, &computepb.InsertReservationRequest{Project: project, Zone: zone, ReservationResource: r}))
	}
	if err := insert(res("r", "e2-standard-4", 2)); err != nil {
		t.Fatal(err)
	}
	got, err := e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetStatus() != "READY" || got.GetSpecificReservation().GetCount() != 2 || got.GetSpecificReservation().GetInUseCount() != 0 || got.GetId() == 0 || got.GetCreationTimestamp() == "" {
		t.Errorf("reservation = %v", got)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 8 {
		t.Errorf("CPUS usage with 2 x e2-standard-4 reserved = %v, want 8", q.Usage)
	}
	wantHTTPError(t, insert(res("r", "e2-standard-4", 1)), 409, "already exists")
	wantHTTPError(t, insert(res("zero", "e2-standard-4", 0)), 400, "specificReservation.count")
	wantHTTPError(t, insert(res("bad", "e2-bogus-3", 1)), 400, "Machine type with name 'e2-bogus-3' does not exist")

	// A VM consuming it charges no further vCPUs.
	v := vm("a", "e2-standard-4")
	v.ReservationAffinity = &computepb.ReservationAffinity{ConsumeReservationType: proto.String("SPECIFIC_RESERVATION"),
		Key: proto.String("compute.googleapis.com/reservation-name"), Values: []string{"r"}}
	e.mustInsert(v)
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 8 {
		t.Errorf("CPUS usage with a VM in the reservation = %v, want 8", q.Usage)
	}

	resize := func(n int64) error {
		return e.wait(e.resv.Resize(e.ctx, &computepb.ResizeReservationRequest{Project: project, Zone: zone, Reservation: "r",
			ReservationsResizeRequestResource: &computepb.ReservationsResizeRequest{SpecificSkuCount: proto.Int64(n)}}))
	}
	wantHTTPError(t, resize(0), 400, "specificSkuCount")
	if err := resize(3); err != nil {
		t.Fatal(err)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 12 {
		t.Errorf("CPUS usage after resize to 3 = %v, want 12", q.Usage)
	}
	_, err = e.resv.Resize(e.ctx, &computepb.ResizeReservationRequest{Project: project, Zone: zone, Reservation: "nope",
		ReservationsResizeRequestResource: &computepb.ReservationsResizeRequest{SpecificSkuCount: proto.Int64(1)}})
	wantHTTPError(t, err, 404, "reservations/nope' was not found")

	// update: count and share settings by updateMask; an unknown path is refused.
	e.mustWait(e.resv.Update(e.ctx, &computepb.UpdateReservationRequest{Project: project, Zone: zone, Reservation: "r",
		UpdateMask: proto.String("specificReservation.count"), ReservationResource: res("r", "e2-standard-4", 4)}))
	e.mustWait(e.resv.Update(e.ctx, &computepb.UpdateReservationRequest{Project: project, Zone: zone, Reservation: "r",
		UpdateMask:          proto.String("shareSettings"),
		ReservationResource: &computepb.Reservation{ShareSettings: &computepb.ShareSettings{ShareType: proto.String("SPECIFIC_PROJECTS")}}}))
	got, _ = e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "r"})
	if got.GetSpecificReservation().GetCount() != 4 || got.GetShareSettings().GetShareType() != "SPECIFIC_PROJECTS" || got.GetSpecificReservation().GetInUseCount() != 1 {
		t.Errorf("after update: %v", got)
	}
	_, err = e.resv.Update(e.ctx, &computepb.UpdateReservationRequest{Project: project, Zone: zone, Reservation: "r",
		UpdateMask: proto.String("name"), ReservationResource: &computepb.Reservation{Name: proto.String("other")}})
	wantHTTPError(t, err, 400, "updateMask")

	// Delete frees the reserved vCPUs; the VM keeps running and now holds its own in quota.
	e.mustWait(e.resv.Delete(e.ctx, &computepb.DeleteReservationRequest{Project: project, Zone: zone, Reservation: "r"}))
	if _, err := e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "r"}); httpCode(err) != 404 {
		t.Errorf("get after delete: %v, want 404", err)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 4 {
		t.Errorf("CPUS usage after delete = %v, want 4 (the consuming VM's own)", q.Usage)
	}
	if st := e.mustGet("a").GetStatus(); st != "RUNNING" {
		t.Errorf("consuming VM status after reservation delete = %s", st)
	}
	e.mustWait(e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "a"}))
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 0 {
		t.Errorf("CPUS usage after the VM is gone = %v, want 0", q.Usage)
	}
}
