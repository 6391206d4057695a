package instances

import (
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Reservations are created through the admin API (the compute package's KindReservations); this file serves them
// read-only and consumes them: specificReservation.inUseCount is kept in the stored record, inside the transaction
// that creates or deletes the VM, so what get/list report is always live.

func (s *Service) reservationRoutes() {
	s.handle("GET "+prefix+"/zones/{zone}/reservations/{reservation}", "compute.reservations.get", core.Read, s.getReservation)
	s.handle("GET "+prefix+"/zones/{zone}/reservations", "compute.reservations.list", core.Read, s.listReservations)
	s.handle("GET "+prefix+"/aggregated/reservations", "compute.reservations.aggregatedList", core.Read, s.aggregatedReservations)
}

// reservationRef is a parsed reservation-affinity value: NAME, projects/OWNER/reservations/NAME, either followed
// by /reservationBlocks/B[/reservationSubBlocks/S].
type reservationRef struct {
	owner, zone, name, block, subBlock string
	key                                string
	shared                             bool // named with projects/OWNER/...
}

func (r reservationRef) display() string {
	return fmt.Sprintf("projects/%s/reservations/%s", r.owner, r.name)
}

func parseReservationRef(project, zone, v string) (reservationRef, bool) {
	ref := reservationRef{owner: project, zone: zone}
	rel := core.RelativePath(v)
	if i := strings.Index(rel, "/reservationBlocks/"); i >= 0 {
		rest := strings.Split(rel[i+len("/reservationBlocks/"):], "/")
		ref.block = rest[0]
		if len(rest) >= 3 && rest[1] == "reservationSubBlocks" {
			ref.subBlock = rest[2]
		}
		rel = rel[:i]
	}
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) == 1:
		ref.name = parts[0]
	case len(parts) == 4 && parts[0] == "projects" && parts[2] == "reservations":
		ref.owner, ref.name, ref.shared = parts[1], parts[3], true
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "zones" && parts[4] == "reservations":
		ref.owner, ref.zone, ref.name, ref.shared = parts[1], parts[3], parts[5], true
	default:
		return ref, false
	}
	if !core.ValidName(ref.name) || ref.zone != zone {
		return ref, false
	}
	ref.key = fmt.Sprintf("projects/%s/zones/%s/reservations/%s", ref.owner, ref.zone, ref.name)
	return ref, true
}

type getter func(kind, key string, v any) (bool, error)

func (s *Service) reservation(get getter, key string) (*computepb.Reservation, bool) {
	var res computepb.Reservation
	if ok, err := get(KindReservations, key, &res); !ok || err != nil {
		return nil, false
	}
	return &res, true
}

// sharedWith reports whether project may consume res (its own, or shared with it by shareSettings).
func sharedWith(res *computepb.Reservation, ref reservationRef, project string) bool {
	if ref.owner == project {
		return true
	}
	ss := res.GetShareSettings()
	switch ss.GetShareType() {
	case "ORGANIZATION":
		return true
	case "SPECIFIC_PROJECTS":
		if _, ok := ss.GetProjectMap()[project]; ok {
			return true
		}
		for _, pc := range ss.GetProjectMap() {
			if pc.GetProjectId() == project {
				return true
			}
		}
	}
	return false
}

func reservationHasRoom(res *computepb.Reservation) bool {
	sr := res.GetSpecificReservation()
	return sr.GetInUseCount() < sr.GetCount() && (res.GetStatus() == "" || res.GetStatus() == "READY")
}

// consumeReservation takes one VM's worth of the reservation inst's affinity selects, inside tx. It returns the
// reservation key ("" when none was consumed) and the block named, if any.
func (s *Service) consumeReservation(tx *core.Tx, project, zone, machineType string, inst *computepb.Instance) (string, string, error) {
	ra := inst.GetReservationAffinity()
	switch ra.GetConsumeReservationType() {
	case specificReservation:
		v := ""
		if len(ra.GetValues()) > 0 {
			v = ra.GetValues()[0]
		}
		ref, ok := parseReservationRef(project, zone, v)
		if !ok {
			return "", "", core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Specified reservation '%s' does not exist.", v))
		}
		res, found := s.reservation(tx.Get, ref.key)
		if !found || !sharedWith(res, ref, project) {
			return "", "", core.NewOpError(404, "RESOURCE_NOT_FOUND", fmt.Sprintf("Specified reservation '%s' does not exist.", v))
		}
		if lastSegment(res.GetSpecificReservation().GetInstanceProperties().GetMachineType()) != machineType {
			return "", "", core.NewOpError(412, "CONDITION_NOT_MET", fmt.Sprintf("No available resources in specified reservations '%s'", ref.name))
		}
		if !reservationHasRoom(res) {
			return "", "", core.NewOpError(412, "CONDITION_NOT_MET", fmt.Sprintf("Specified reservation '%s' does not have available resources for the request.", ref.name))
		}
		return ref.key, ref.block, s.adjustReservation(tx, ref.key, res, +1)
	case anyReservation:
		for _, rec := range tx.List(KindReservations, fmt.Sprintf("projects/%s/zones/%s/reservations/", project, zone)) {
			var res computepb.Reservation
			if rec.Decode(&res) != nil || res.GetSpecificReservationRequired() {
				continue
			}
			if lastSegment(res.GetSpecificReservation().GetInstanceProperties().GetMachineType()) != machineType || !reservationHasRoom(&res) {
				continue
			}
			return rec.Key, "", s.adjustReservation(tx, rec.Key, &res, +1)
		}
	}
	return "", "", nil
}

// releaseReservation gives back one VM's worth of a consumed reservation (which may have been deleted since).
func (s *Service) releaseReservation(tx *core.Tx, key string) error {
	res, ok := s.reservation(tx.Get, key)
	if !ok {
		return nil
	}
	return s.adjustReservation(tx, key, res, -1)
}

func (s *Service) adjustReservation(tx *core.Tx, key string, res *computepb.Reservation, delta int64) error {
	if res.SpecificReservation == nil {
		res.SpecificReservation = &computepb.AllocationSpecificSKUReservation{}
	}
	n := max(res.SpecificReservation.GetInUseCount()+delta, 0)
	res.SpecificReservation.InUseCount = proto.Int64(n)
	return tx.Put(KindReservations, key, res)
}

// normalizeReservation fills the output fields a seeded record may lack.
func normalizeReservation(key string, res *computepb.Reservation) {
	project, zone, _ := scopePartsOf(key)
	res.Kind = proto.String("compute#reservation")
	res.Name = proto.String(lastSegment(key))
	res.SelfLink = proto.String(core.SelfLink(key))
	res.Zone = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", project, zone)))
	if res.Status == nil {
		res.Status = proto.String("READY")
	}
	if res.SpecificReservationRequired == nil {
		res.SpecificReservationRequired = proto.Bool(false)
	}
	if res.SpecificReservation == nil {
		res.SpecificReservation = &computepb.AllocationSpecificSKUReservation{}
	}
	sr := res.SpecificReservation
	if sr.Count == nil {
		sr.Count = proto.Int64(0)
	}
	if sr.InUseCount == nil {
		sr.InUseCount = proto.Int64(0)
	}
	if ip := sr.GetInstanceProperties(); ip != nil && ip.MachineType != nil {
		ip.MachineType = proto.String(lastSegment(ip.GetMachineType()))
	}
}

func normalizedReservationRecord(rec core.Record) core.Record {
	var res computepb.Reservation
	if rec.Decode(&res) != nil {
		return rec
	}
	normalizeReservation(rec.Key, &res)
	if b, err := core.Encode(&res); err == nil {
		rec.JSON = b
	}
	return rec
}

func (s *Service) getReservation(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	key := fmt.Sprintf("projects/%s/zones/%s/reservations/%s", r.PathValue("project"), zone, r.PathValue("reservation"))
	res, found := s.reservation(s.Store.Get, key)
	if !found {
		fail(w, r, core.NotFound(key))
		return
	}
	normalizeReservation(key, res)
	core.WriteJSON(w, http.StatusOK, res)
}

func (s *Service) listReservations(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	collection := fmt.Sprintf("projects/%s/zones/%s/reservations", r.PathValue("project"), zone)
	recs := s.Store.List(KindReservations, collection+"/")
	for i := range recs {
		recs[i] = normalizedReservationRecord(recs[i])
	}
	s.listRecords(w, r, "compute#reservationList", collection, recs)
}

func (s *Service) aggregatedReservations(w http.ResponseWriter, r *http.Request) {
	recs := s.Store.List(KindReservations, "projects/"+r.PathValue("project")+"/")
	for i := range recs {
		recs[i] = normalizedReservationRecord(recs[i])
	}
	s.aggregated(w, r, "compute#reservationAggregatedList", "reservations", recs, zoneScopes())
}
