package instances

import (
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// The clock side of future reservations: approval, delivery at the start time and the end of the delivered
// reservation. sweepFutureReservations brings every request up to the emulator's clock; it runs once a second,
// right after the clock is moved, and before any futureReservations read, so what a client sees is always current.

func (s *Service) startFutureReservationClock() {
	stop := make(chan struct{})
	var once sync.Once
	s.OnAdvance(s.sweepFutureReservations)
	// Close may run more than once (a test's cleanup and the emulator's own).
	s.OnClose(func() { once.Do(func() { close(stop) }) })
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s.sweepFutureReservations()
			}
		}
	}()
}

func (s *Service) sweepFutureReservations() {
	s.frMu.Lock()
	defer s.frMu.Unlock()
	for _, rec := range s.Store.List(KindFutureReservations, "") {
		var fr computepb.FutureReservation
		if rec.Decode(&fr) != nil {
			continue
		}
		if frSettled(&fr, s.Now()) {
			continue
		}
		key := rec.Key
		_ = s.Store.Update(func(tx *core.Tx) error {
			var cur computepb.FutureReservation
			if ok, _ := tx.Get(KindFutureReservations, key, &cur); !ok {
				return nil
			}
			return s.advanceFutureReservation(tx, key, &cur, s.Now())
		})
	}
}

// frSettled reports whether a request has nothing left to happen at now (so the sweep skips it cheaply).
func frSettled(fr *computepb.FutureReservation, now time.Time) bool {
	switch fr.GetStatus().GetProcurementStatus() {
	case frPendingApproval:
		return false
	case frApproved:
		w, err := windowOf(fr)
		return err != nil || now.Before(w.start)
	case frFulfilled:
		w, err := windowOf(fr)
		return err != nil || now.Before(w.deleteAt) || !fr.GetAutoDeleteAutoCreatedReservations() || len(fr.GetStatus().GetAutoCreatedReservations()) == 0 ||
			fr.GetStatus().GetFulfilledCount() == 0
	}
	return true
}

// advanceFutureReservation moves one request through every transition now has reached, inside tx.
func (s *Service) advanceFutureReservation(tx *core.Tx, key string, fr *computepb.FutureReservation, now time.Time) error {
	w, err := windowOf(fr)
	if err != nil {
		return nil
	}
	st := fr.Status
	if st.GetProcurementStatus() == frPendingApproval {
		// Approved at once. A calendar-mode request locks when approved; a default one at its start.
		st.ProcurementStatus = proto.String(frApproved)
		lock := w.start
		if fr.GetReservationMode() == modeCalendar {
			lock = now
		}
		st.LockTime = proto.String(lock.UTC().Format(time.RFC3339))
	}
	if st.GetProcurementStatus() == frApproved && !now.Before(w.start) {
		resKey, err := s.deliverFutureReservation(tx, key, fr, w)
		if err != nil {
			return err
		}
		st.ProcurementStatus = proto.String(frFulfilled)
		st.AutoCreatedReservations = []string{core.SelfLink(resKey)}
		st.FulfilledCount = proto.Int64(fr.GetSpecificSkuProperties().GetTotalCount())
	}
	if st.GetProcurementStatus() == frFulfilled && fr.GetAutoDeleteAutoCreatedReservations() && !now.Before(w.deleteAt) && st.GetFulfilledCount() > 0 {
		for _, link := range st.GetAutoCreatedReservations() {
			if err := s.endDeliveredReservation(tx, core.RelativePath(link), fr.GetReservationMode() == modeCalendar, now); err != nil {
				return err
			}
		}
		// Nothing left to end: the sweep skips it from now on.
		st.FulfilledCount = proto.Int64(0)
	}
	return tx.Put(KindFutureReservations, key, fr)
}

// deliverFutureReservation creates the reservation a request delivers at its start time.
func (s *Service) deliverFutureReservation(tx *core.Tx, frKey string, fr *computepb.FutureReservation, w frWindow) (string, error) {
	project, zone, _ := scopePartsOf(frKey)
	name := fr.GetReservationName()
	if name == "" {
		prefix := fr.GetNamePrefix()
		if prefix == "" {
			prefix = fr.GetName()
			if len(prefix) > maxNamePrefix {
				prefix = prefix[:maxNamePrefix]
			}
		}
		name = fmt.Sprintf("%s-%s-%04d", prefix, w.start.UTC().Format("20060102"), s.Rand.ID()%10000)
	}
	key := reservationKey(project, zone, name)
	sku := fr.GetSpecificSkuProperties()
	props := proto.Clone(sku.GetInstanceProperties()).(*computepb.AllocationSpecificSKUAllocationReservedInstanceProperties)
	required := fr.GetReservationMode() == modeCalendar
	if fr.SpecificReservationRequired != nil {
		required = fr.GetSpecificReservationRequired()
	}
	res := &computepb.Reservation{
		Name: proto.String(name), Id: proto.Uint64(s.Rand.ID()), CreationTimestamp: proto.String(core.Timestamp(s.Now())),
		Description:                 proto.String("Reservation delivered by future reservation " + fr.GetName()),
		SpecificReservationRequired: proto.Bool(required),
		SpecificReservation:         &computepb.AllocationSpecificSKUReservation{Count: proto.Int64(sku.GetTotalCount()), InUseCount: proto.Int64(0), InstanceProperties: props},
		Status:                      proto.String("READY"),
		DeploymentType:              fr.DeploymentType,
		ShareSettings:               fr.ShareSettings,
	}
	normalizeReservation(key, res)
	if tx.Exists(KindReservations, key) {
		return "", core.NewOpError(409, "alreadyExists", fmt.Sprintf("The reservation '%s' a future reservation delivers already exists.", key))
	}
	if err := s.chargeReservation(tx, key, props.GetMachineType(), sku.GetTotalCount()); err != nil {
		return "", err
	}
	return key, tx.Put(KindReservations, key, res)
}

// endDeliveredReservation deletes a delivered reservation at its end; in calendar mode the VMs running on it
// stop with it.
func (s *Service) endDeliveredReservation(tx *core.Tx, resKey string, stopVMs bool, now time.Time) error {
	if !tx.Exists(KindReservations, resKey) {
		return nil
	}
	if stopVMs {
		project, zone, _ := scopePartsOf(resKey)
		for _, rec := range tx.List(KindCharges, fmt.Sprintf("projects/%s/zones/%s/instances/", project, zone)) {
			var ch Charge
			if rec.Decode(&ch) != nil || ch.Reservation != resKey {
				continue
			}
			var inst computepb.Instance
			if ok, _ := tx.Get(KindInstances, rec.Key, &inst); !ok || inst.GetStatus() != statusRunning {
				continue
			}
			s.serial.appendLine(rec.Key, now, "[ 1000.000000] hypercompute-emulator: stopped at the end of its calendar reservation")
			inst.Status = proto.String(statusTerminated)
			inst.LastStopTimestamp = proto.String(core.Timestamp(now))
			if err := tx.Put(KindInstances, rec.Key, &inst); err != nil {
				return err
			}
		}
	}
	if err := s.releaseCharge(tx, resKey); err != nil {
		return err
	}
	if err := s.unreserveConsumers(tx, resKey); err != nil {
		return err
	}
	tx.Delete(KindReservations, resKey)
	return nil
}
