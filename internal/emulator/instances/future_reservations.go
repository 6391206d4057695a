package instances

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// futureReservations: capacity asked for a fixed window ahead ("calendar mode" for GPUs). A submitted request is
// approved at once; at its start time it is delivered as an ordinary reservation (the auto-created one, consumed
// by VMs with a specific affinity), and at its end (calendar mode, or autoDeleteAutoCreatedReservations) that
// reservation is deleted — in calendar mode with the VMs running on it stopped. Time is the emulator's clock, which
// tests move with POST /emulator/v1/clock:advance (future_reservations_clock.go evaluates the transitions).

// KindFutureReservations holds future reservations (projects/P/zones/Z/futureReservations/N).
const KindFutureReservations = "compute.futureReservations"

// Procurement statuses the emulator moves a request through (the API's FutureReservationStatus).
const (
	frDrafting        = "DRAFTING"
	frPendingApproval = "PENDING_APPROVAL"
	frApproved        = "APPROVED"
	frFulfilled       = "FULFILLED"
	frCancelled       = "CANCELLED"

	modeCalendar = "CALENDAR"
	modeDefault  = "DEFAULT"

	// Calendar mode reserves 1 to 90 days.
	calendarMinDuration = 24 * time.Hour
	calendarMaxDuration = 90 * 24 * time.Hour
	maxNamePrefix       = 20
)

func (s *Service) futureReservationRoutes() {
	p := prefix + "/zones/{zone}/futureReservations"
	s.handle("POST "+p, "compute.futureReservations.insert", core.Mutating, s.insertFutureReservation)
	s.handle("GET "+p, "compute.futureReservations.list", core.Read, s.listFutureReservations)
	s.handle("GET "+p+"/{fr}", "compute.futureReservations.get", core.Read, s.getFutureReservation)
	s.handle("PATCH "+p+"/{fr}", "compute.futureReservations.update", core.Mutating, s.updateFutureReservation)
	s.handle("POST "+p+"/{fr}/cancel", "compute.futureReservations.cancel", core.Mutating, s.cancelFutureReservation)
	s.handle("DELETE "+p+"/{fr}", "compute.futureReservations.delete", core.Mutating, s.deleteFutureReservation)
	s.handle("GET "+prefix+"/aggregated/futureReservations", "compute.futureReservations.aggregatedList", core.Read, s.aggregatedFutureReservations)
}

func futureReservationKey(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/futureReservations/%s", project, zone, name)
}

// frWindow is a request's window: start, end, and when its delivered reservation is deleted.
type frWindow struct{ start, end, deleteAt time.Time }

func windowOf(fr *computepb.FutureReservation) (frWindow, *core.APIError) {
	tw := fr.GetTimeWindow()
	if tw == nil || tw.GetStartTime() == "" {
		return frWindow{}, core.Required("resource.timeWindow.startTime")
	}
	start, err := time.Parse(time.RFC3339, tw.GetStartTime())
	if err != nil {
		return frWindow{}, core.InvalidField("resource.timeWindow.startTime", tw.GetStartTime(), "Must be an RFC3339 timestamp.")
	}
	var end time.Time
	switch {
	case tw.GetEndTime() != "" && tw.GetDuration() != nil:
		return frWindow{}, core.Invalid("Only one of timeWindow.endTime and timeWindow.duration may be set.")
	case tw.GetEndTime() != "":
		if end, err = time.Parse(time.RFC3339, tw.GetEndTime()); err != nil {
			return frWindow{}, core.InvalidField("resource.timeWindow.endTime", tw.GetEndTime(), "Must be an RFC3339 timestamp.")
		}
	case tw.GetDuration() != nil:
		end = start.Add(time.Duration(tw.GetDuration().GetSeconds())*time.Second + time.Duration(tw.GetDuration().GetNanos()))
	default:
		return frWindow{}, core.Required("resource.timeWindow.endTime")
	}
	if !end.After(start) {
		return frWindow{}, core.InvalidField("resource.timeWindow", tw.GetEndTime(), "The end time must be after the start time.")
	}
	w := frWindow{start: start, end: end, deleteAt: end}
	if t := fr.GetAutoCreatedReservationsDeleteTime(); t != "" {
		if w.deleteAt, err = time.Parse(time.RFC3339, t); err != nil {
			return frWindow{}, core.InvalidField("resource.autoCreatedReservationsDeleteTime", t, "Must be an RFC3339 timestamp.")
		}
	} else if d := fr.GetAutoCreatedReservationsDuration(); d != nil {
		w.deleteAt = start.Add(time.Duration(d.GetSeconds()) * time.Second)
	}
	return w, nil
}

// validateFutureReservation checks a request as insert (and update) receive it.
func (s *Service) validateFutureReservation(project, zone string, fr *computepb.FutureReservation, now time.Time) *core.APIError {
	if fr.GetAggregateReservation() != nil {
		return core.Invalid("The emulator serves future reservations of VMs (specificSkuProperties) only, not aggregateReservation.")
	}
	sku := fr.GetSpecificSkuProperties()
	if sku == nil {
		return core.Required("resource.specificSkuProperties")
	}
	if sku.GetTotalCount() <= 0 {
		return core.InvalidField("resource.specificSkuProperties.totalCount", fmt.Sprint(sku.GetTotalCount()), "Must be greater than 0.")
	}
	if ref := sku.GetSourceInstanceTemplate(); ref != "" {
		// The delivered reservation holds VMs of the template's machine type.
		key, kind := templateKey(project, ref)
		var tmpl computepb.InstanceTemplate
		if ok, _ := s.Store.Get(kind, key, &tmpl); !ok {
			return core.InvalidField("resource.specificSkuProperties.sourceInstanceTemplate", ref, "The instance template does not exist.")
		}
		sku.InstanceProperties = &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(lastSegment(tmpl.GetProperties().GetMachineType()))}
	} else {
		mt, err := resolveMachineType("resource.specificSkuProperties.instanceProperties.machineType", sku.GetInstanceProperties().GetMachineType(), zone)
		if err != nil {
			return err
		}
		sku.InstanceProperties.MachineType = proto.String(mt.Name)
	}
	w, err := windowOf(fr)
	if err != nil {
		return err
	}
	if !w.start.After(now) {
		return core.InvalidField("resource.timeWindow.startTime", fr.GetTimeWindow().GetStartTime(), "The start time must be in the future.")
	}
	switch mode := fr.GetReservationMode(); mode {
	case "", modeDefault:
	case modeCalendar:
		if d := w.end.Sub(w.start); d < calendarMinDuration || d > calendarMaxDuration {
			return core.InvalidField("resource.timeWindow", d.String(), "A calendar-mode future reservation lasts from 1 to 90 days.")
		}
		if fr.AutoDeleteAutoCreatedReservations != nil && !fr.GetAutoDeleteAutoCreatedReservations() {
			return core.InvalidField("resource.autoDeleteAutoCreatedReservations", "false", "Calendar-mode reservations are deleted at their end time.")
		}
	default:
		return core.InvalidField("resource.reservationMode", mode, "Must be one of CALENDAR, DEFAULT.")
	}
	if ps := fr.GetPlanningStatus(); ps != "" && ps != "DRAFT" && ps != "SUBMITTED" {
		return core.InvalidField("resource.planningStatus", ps, "Must be one of DRAFT, SUBMITTED.")
	}
	if dt := fr.GetDeploymentType(); dt != "" && dt != "DENSE" && dt != "FLEXIBLE" {
		return core.InvalidField("resource.deploymentType", dt, "Must be one of DENSE, FLEXIBLE.")
	}
	if p := fr.GetNamePrefix(); p != "" && (len(p) > maxNamePrefix || !core.ValidName(p)) {
		return core.InvalidField("resource.namePrefix", p, fmt.Sprintf("Must comply with RFC1035 and be at most %d characters.", maxNamePrefix))
	}
	if n := fr.GetReservationName(); n != "" && !core.ValidName(n) {
		return core.InvalidField("resource.reservationName", n, "Must comply with RFC1035.")
	}
	return nil
}

func (s *Service) insertFutureReservation(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	fr := &computepb.FutureReservation{}
	if _, err := readBody(r, fr); err != nil {
		fail(w, r, err)
		return
	}
	if err := core.ValidateName("resource.name", fr.GetName()); err != nil {
		fail(w, r, err)
		return
	}
	key := futureReservationKey(r.PathValue("project"), zone, fr.GetName())
	if s.Store.Exists(KindFutureReservations, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	now := s.Now()
	if err := s.validateFutureReservation(r.PathValue("project"), zone, fr, now); err != nil {
		fail(w, r, err)
		return
	}
	if fr.GetReservationMode() == modeCalendar && fr.AutoDeleteAutoCreatedReservations == nil {
		fr.AutoDeleteAutoCreatedReservations = proto.Bool(true)
	}
	fr.Id = proto.Uint64(s.Rand.ID())
	fr.CreationTimestamp = proto.String(core.Timestamp(now))
	fr.Status = &computepb.FutureReservationStatus{ProcurementStatus: proto.String(frDrafting)}
	if fr.GetPlanningStatus() == "SUBMITTED" {
		fr.Status.ProcurementStatus = proto.String(frPendingApproval)
	} else {
		fr.PlanningStatus = proto.String("DRAFT")
	}
	normalizeFutureReservation(key, fr)
	op := s.reservationOp(r, key, "insert", fr.GetId(), func(tx *core.Tx) error {
		if tx.Exists(KindFutureReservations, key) {
			return core.OpAlreadyExists(key)
		}
		return tx.Put(KindFutureReservations, key, fr)
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// normalizeFutureReservation fills the output fields.
func normalizeFutureReservation(key string, fr *computepb.FutureReservation) {
	project, zone, _ := scopePartsOf(key)
	fr.Kind = proto.String("compute#futureReservation")
	fr.Name = proto.String(lastSegment(key))
	fr.SelfLink = proto.String(core.SelfLink(key))
	fr.SelfLinkWithId = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/futureReservations/%d", project, zone, fr.GetId())))
	fr.Zone = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", project, zone)))
	if fr.ReservationMode == nil {
		fr.ReservationMode = proto.String(modeDefault)
	}
}

// futureReservationFor loads the request a path names (after bringing it up to the clock), answering 404 itself.
func (s *Service) futureReservationFor(w http.ResponseWriter, r *http.Request) (string, *computepb.FutureReservation, bool) {
	zone, ok := s.zone(w, r)
	if !ok {
		return "", nil, false
	}
	s.sweepFutureReservations()
	key := futureReservationKey(r.PathValue("project"), zone, r.PathValue("fr"))
	var fr computepb.FutureReservation
	if ok, err := s.Store.Get(KindFutureReservations, key, &fr); !ok || err != nil {
		fail(w, r, core.NotFound(key))
		return "", nil, false
	}
	return key, &fr, true
}

func (s *Service) getFutureReservation(w http.ResponseWriter, r *http.Request) {
	if _, fr, ok := s.futureReservationFor(w, r); ok {
		core.WriteJSON(w, http.StatusOK, fr)
	}
}

func (s *Service) listFutureReservations(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	s.sweepFutureReservations()
	s.list(w, r, "compute#futureReservationsListResponse", KindFutureReservations, fmt.Sprintf("projects/%s/zones/%s/futureReservations/", r.PathValue("project"), zone))
}

func (s *Service) aggregatedFutureReservations(w http.ResponseWriter, r *http.Request) {
	s.sweepFutureReservations()
	recs := s.Store.List(KindFutureReservations, "projects/"+r.PathValue("project")+"/")
	s.aggregated(w, r, "compute#futureReservationsAggregatedListResponse", "futureReservations", recs, zoneScopes())
}

// cancelFutureReservation stops a request before its lock time (a calendar-mode request locks when approved).
func (s *Service) cancelFutureReservation(w http.ResponseWriter, r *http.Request) {
	key, fr, ok := s.futureReservationFor(w, r)
	if !ok {
		return
	}
	if err := cancellable(fr, s.Now()); err != nil {
		fail(w, r, err)
		return
	}
	op := s.reservationOp(r, key, "cancel", fr.GetId(), func(tx *core.Tx) error {
		var cur computepb.FutureReservation
		if ok, _ := tx.Get(KindFutureReservations, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if err := cancellable(&cur, s.Now()); err != nil {
			return core.NewOpError(400, "INVALID_USAGE", err.Message)
		}
		cur.Status.ProcurementStatus = proto.String(frCancelled)
		return tx.Put(KindFutureReservations, key, &cur)
	})
	core.WriteJSON(w, http.StatusOK, op)
}

func cancellable(fr *computepb.FutureReservation, now time.Time) *core.APIError {
	st := fr.GetStatus().GetProcurementStatus()
	switch st {
	case frDrafting, frPendingApproval:
		return nil
	case frApproved:
		if lock, err := time.Parse(time.RFC3339, fr.GetStatus().GetLockTime()); err == nil && now.Before(lock) {
			return nil
		}
		return core.BadRequest("invalid", fmt.Sprintf("The future reservation '%s' cannot be cancelled after its lock time (%s).", fr.GetName(), fr.GetStatus().GetLockTime()))
	}
	return core.BadRequest("invalid", fmt.Sprintf("The future reservation '%s' cannot be cancelled in status %s.", fr.GetName(), st))
}

// deleteFutureReservation removes the record of a request that is a draft, cancelled, or past its end; the
// reservation it delivered is not deleted with it (as on Compute).
func (s *Service) deleteFutureReservation(w http.ResponseWriter, r *http.Request) {
	key, fr, ok := s.futureReservationFor(w, r)
	if !ok {
		return
	}
	win, _ := windowOf(fr)
	st := fr.GetStatus().GetProcurementStatus()
	if !slices.Contains([]string{frDrafting, frCancelled, "DECLINED", "FAILED"}, st) && s.Now().Before(win.end) {
		fail(w, r, core.BadRequest("invalid", fmt.Sprintf("The future reservation '%s' in status %s can only be deleted after it is cancelled or has reached its end time.", fr.GetName(), st)))
		return
	}
	op := s.reservationOp(r, key, "delete", fr.GetId(), func(tx *core.Tx) error {
		if !tx.Exists(KindFutureReservations, key) {
			return core.OpNotFound(key)
		}
		tx.Delete(KindFutureReservations, key)
		return nil
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// updateFutureReservation changes the fields updateMask names, until the request is approved.
func (s *Service) updateFutureReservation(w http.ResponseWriter, r *http.Request) {
	key, cur, ok := s.futureReservationFor(w, r)
	if !ok {
		return
	}
	if st := cur.GetStatus().GetProcurementStatus(); st != frDrafting && st != frPendingApproval {
		fail(w, r, core.BadRequest("invalid", fmt.Sprintf("The future reservation '%s' cannot be updated in status %s.", cur.GetName(), st)))
		return
	}
	in := &computepb.FutureReservation{}
	if _, err := readBody(r, in); err != nil {
		fail(w, r, err)
		return
	}
	mask := r.URL.Query().Get("updateMask")
	if mask == "" {
		fail(w, r, core.Required("updateMask"))
		return
	}
	next := proto.Clone(cur).(*computepb.FutureReservation)
	for _, f := range strings.Split(mask, ",") {
		switch strings.TrimSpace(f) {
		case "specificSkuProperties.totalCount":
			next.SpecificSkuProperties.TotalCount = proto.Int64(in.GetSpecificSkuProperties().GetTotalCount())
		case "timeWindow":
			next.TimeWindow = in.GetTimeWindow()
		case "description":
			next.Description = in.Description
		case "planningStatus":
			next.PlanningStatus = in.PlanningStatus
		case "autoDeleteAutoCreatedReservations":
			next.AutoDeleteAutoCreatedReservations = in.AutoDeleteAutoCreatedReservations
		case "namePrefix":
			next.NamePrefix = in.NamePrefix
		default:
			fail(w, r, core.InvalidField("updateMask", f, "This field cannot be updated."))
			return
		}
	}
	project, zone, _ := scopePartsOf(key)
	if err := s.validateFutureReservation(project, zone, next, s.Now()); err != nil {
		fail(w, r, err)
		return
	}
	if next.GetPlanningStatus() == "SUBMITTED" && next.GetStatus().GetProcurementStatus() == frDrafting {
		next.Status.ProcurementStatus = proto.String(frPendingApproval)
	}
	op := s.reservationOp(r, key, "update", cur.GetId(), func(tx *core.Tx) error {
		if !tx.Exists(KindFutureReservations, key) {
			return core.OpNotFound(key)
		}
		return tx.Put(KindFutureReservations, key, next)
	})
	core.WriteJSON(w, http.StatusOK, op)
}
