package instances

import (
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// reservations insert/delete/resize/update. A reservation made through the API holds its VMs' CPUs and GPUs in
// the region's quota (the VMs that consume it then charge only INSTANCES, see acquire); the charge is kept
// under the reservation's key in KindCharges, so delete and resize give back exactly what was taken. Reservations
// seeded through the admin API hold nothing.

func (s *Service) reservationMutationRoutes() {
	p := prefix + "/zones/{zone}/reservations"
	s.handle("POST "+p, "compute.reservations.insert", core.Mutating, s.insertReservation)
	s.handle("DELETE "+p+"/{reservation}", "compute.reservations.delete", core.Mutating, s.deleteReservation)
	s.handle("POST "+p+"/{reservation}/resize", "compute.reservations.resize", core.Mutating, s.resizeReservation)
	s.handle("PATCH "+p+"/{reservation}", "compute.reservations.update", core.Mutating, s.updateReservation)
}

func reservationKey(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/reservations/%s", project, zone, name)
}

// reservationCharge is what count VMs of mt hold in quota while reserved.
func reservationCharge(mt catalog.MachineType, count int64) map[string]float64 {
	out := map[string]float64{}
	for metric, v := range mt.QuotaMetrics() {
		if metric != catalog.QuotaInstances {
			out[metric] = v * float64(count)
		}
	}
	return out
}

// chargeReservation replaces the reservation's quota charge by that of count VMs.
func (s *Service) chargeReservation(tx *core.Tx, key, machineType string, count int64) error {
	_, zone, _ := scopePartsOf(key)
	mt, ok := catalog.Machine(lastSegment(machineType))
	if !ok {
		return nil
	}
	if err := s.releaseCharge(tx, key); err != nil {
		return err
	}
	region, _ := catalog.RegionOf(zone)
	amounts := reservationCharge(mt, count)
	if err := s.Quotas.ChargeTx(tx, region, amounts); err != nil {
		return err
	}
	return tx.Put(KindCharges, key, Charge{Region: region, Amounts: amounts})
}

func (s *Service) reservationOp(r *http.Request, key, opType string, id uint64, apply func(tx *core.Tx) error) *computepb.Operation {
	project, zone, _ := scopePartsOf(key)
	return s.Ops.StartCompute(r, core.ComputeOp{Project: project, Zone: zone, OperationType: opType, TargetLink: key, TargetID: id,
		Apply: func(tx *core.Tx, _ *computepb.Operation) error { return apply(tx) }})
}

func (s *Service) insertReservation(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	res := &computepb.Reservation{}
	if _, err := readBody(r, res); err != nil {
		fail(w, r, err)
		return
	}
	if err := core.ValidateName("resource.name", res.GetName()); err != nil {
		fail(w, r, err)
		return
	}
	key := reservationKey(r.PathValue("project"), zone, res.GetName())
	if s.Store.Exists(KindReservations, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	sr := res.GetSpecificReservation()
	if sr == nil {
		fail(w, r, core.Required("resource.specificReservation"))
		return
	}
	if sr.GetCount() <= 0 {
		fail(w, r, core.InvalidField("resource.specificReservation.count", fmt.Sprint(sr.GetCount()), "Must be greater than 0."))
		return
	}
	mtRef := sr.GetInstanceProperties().GetMachineType()
	mt, apiErr := resolveMachineType("resource.specificReservation.instanceProperties.machineType", mtRef, zone)
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	if st := res.GetShareSettings().GetShareType(); st != "" && st != "LOCAL" && st != "SPECIFIC_PROJECTS" && st != "ORGANIZATION" {
		fail(w, r, core.InvalidField("resource.shareSettings.shareType", st, "Must be one of LOCAL, SPECIFIC_PROJECTS, ORGANIZATION."))
		return
	}
	// Output fields a client may not set.
	sr.InUseCount = proto.Int64(0)
	sr.InstanceProperties.MachineType = proto.String(mt.Name)
	res.Id = proto.Uint64(s.Rand.ID())
	res.CreationTimestamp = proto.String(core.Timestamp(s.Now()))
	res.Status = proto.String("READY")
	res.Commitment = nil
	normalizeReservation(key, res)
	op := s.reservationOp(r, key, "insert", res.GetId(), func(tx *core.Tx) error {
		if tx.Exists(KindReservations, key) {
			return core.OpAlreadyExists(key)
		}
		if err := s.chargeReservation(tx, key, mt.Name, sr.GetCount()); err != nil {
			return err
		}
		return tx.Put(KindReservations, key, res)
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// reservationFor loads the reservation a request names, answering 404 itself.
func (s *Service) reservationFor(w http.ResponseWriter, r *http.Request) (string, *computepb.Reservation, bool) {
	zone, ok := s.zone(w, r)
	if !ok {
		return "", nil, false
	}
	key := reservationKey(r.PathValue("project"), zone, r.PathValue("reservation"))
	res, found := s.reservation(s.Store.Get, key)
	if !found {
		fail(w, r, core.NotFound(key))
		return "", nil, false
	}
	return key, res, true
}

// deleteReservation frees the reserved capacity; VMs that consume it keep running (as on Compute).
func (s *Service) deleteReservation(w http.ResponseWriter, r *http.Request) {
	key, res, ok := s.reservationFor(w, r)
	if !ok {
		return
	}
	op := s.reservationOp(r, key, "delete", res.GetId(), func(tx *core.Tx) error {
		if !tx.Exists(KindReservations, key) {
			return core.OpNotFound(key)
		}
		if err := s.releaseCharge(tx, key); err != nil {
			return err
		}
		if err := s.unreserveConsumers(tx, key); err != nil {
			return err
		}
		tx.Delete(KindReservations, key)
		return nil
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// unreserveConsumers moves the VMs that consumed a deleted reservation onto ordinary quota: their vCPUs and GPUs,
// held by the reservation until now, are charged to them.
func (s *Service) unreserveConsumers(tx *core.Tx, resKey string) error {
	project, zone, _ := scopePartsOf(resKey)
	for _, rec := range tx.List(KindCharges, fmt.Sprintf("projects/%s/zones/%s/instances/", project, zone)) {
		var ch Charge
		if rec.Decode(&ch) != nil || ch.Reservation != resKey {
			continue
		}
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, rec.Key, &inst); !ok {
			continue
		}
		name, _ := machineTypeName(inst.GetMachineType())
		mt, ok := catalog.Machine(name)
		if !ok {
			continue
		}
		extra := reservationCharge(mt, 1)
		if err := s.Quotas.ChargeTx(tx, ch.Region, extra); err != nil {
			return err
		}
		for m, v := range extra {
			ch.Amounts[m] += v
		}
		ch.Reservation = ""
		if err := tx.Put(KindCharges, rec.Key, ch); err != nil {
			return err
		}
	}
	return nil
}

// setReservationCount is resize's change, shared with update's specificReservation.count: a reservation cannot
// shrink below the VMs consuming it.
func (s *Service) setReservationCount(w http.ResponseWriter, r *http.Request, key string, res *computepb.Reservation, field, opType string, count int64) {
	if count < 0 {
		fail(w, r, core.InvalidField(field, fmt.Sprint(count), "Must be greater than or equal to 0."))
		return
	}
	if inUse := res.GetSpecificReservation().GetInUseCount(); count < inUse {
		fail(w, r, core.InvalidField(field, fmt.Sprint(count), fmt.Sprintf("The reservation has %d VMs in use; it cannot be resized below that.", inUse)))
		return
	}
	op := s.reservationOp(r, key, opType, res.GetId(), func(tx *core.Tx) error {
		cur, ok := s.reservation(tx.Get, key)
		if !ok {
			return core.OpNotFound(key)
		}
		if count < cur.GetSpecificReservation().GetInUseCount() {
			return core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Invalid value for field '%s': '%d'. The reservation has VMs in use above that count.", field, count))
		}
		if tx.Exists(KindCharges, key) {
			if err := s.chargeReservation(tx, key, cur.GetSpecificReservation().GetInstanceProperties().GetMachineType(), count); err != nil {
				return err
			}
		}
		if cur.SpecificReservation == nil {
			cur.SpecificReservation = &computepb.AllocationSpecificSKUReservation{}
		}
		cur.SpecificReservation.Count = proto.Int64(count)
		return tx.Put(KindReservations, key, cur)
	})
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) resizeReservation(w http.ResponseWriter, r *http.Request) {
	req := &computepb.ReservationsResizeRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	if req.SpecificSkuCount == nil {
		fail(w, r, core.Required("specificSkuCount"))
		return
	}
	key, res, ok := s.reservationFor(w, r)
	if !ok {
		return
	}
	s.setReservationCount(w, r, key, res, "specificSkuCount", "resize", req.GetSpecificSkuCount())
}

// updateReservation applies the fields updateMask (or paths=) names: specificReservation.count and shareSettings.
func (s *Service) updateReservation(w http.ResponseWriter, r *http.Request) {
	patch := &computepb.Reservation{}
	if _, err := readBody(r, patch); err != nil {
		fail(w, r, err)
		return
	}
	key, res, ok := s.reservationFor(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	var paths []string
	for _, v := range append(q["updateMask"], q["paths"]...) {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		fail(w, r, core.Required("updateMask"))
		return
	}
	share := false
	for _, p := range paths {
		switch {
		case p == "specificReservation.count" || p == "specificReservation.specificSkuCount":
			if len(paths) > 1 {
				fail(w, r, core.InvalidField("updateMask", strings.Join(paths, ","), "specificReservation.count cannot be updated together with other fields."))
				return
			}
			s.setReservationCount(w, r, key, res, "resource.specificReservation.count", "update", patch.GetSpecificReservation().GetCount())
			return
		case p == "shareSettings" || strings.HasPrefix(p, "shareSettings."):
			share = true
		default:
			fail(w, r, core.InvalidField("updateMask", p, "The field cannot be updated."))
			return
		}
	}
	if share && res.GetShareSettings().GetShareType() == "LOCAL" && patch.GetShareSettings().GetShareType() != "LOCAL" && patch.GetShareSettings().GetShareType() != "" {
		fail(w, r, core.InvalidField("resource.shareSettings.shareType", patch.GetShareSettings().GetShareType(), "A local reservation cannot become shared."))
		return
	}
	op := s.reservationOp(r, key, "update", res.GetId(), func(tx *core.Tx) error {
		cur, ok := s.reservation(tx.Get, key)
		if !ok {
			return core.OpNotFound(key)
		}
		cur.ShareSettings = patch.GetShareSettings()
		return tx.Put(KindReservations, key, cur)
	})
	core.WriteJSON(w, http.StatusOK, op)
}
