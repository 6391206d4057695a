package instances

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Store kinds owned by this package (see the package documentation for keys and values).
const (
	KindInstances               = "compute.instances"
	KindInstanceTemplates       = "compute.instanceTemplates"
	KindRegionInstanceTemplates = "compute.regionInstanceTemplates"
	KindResourcePolicies        = "compute.resourcePolicies"
	KindGuestAttributes         = "compute.guestAttributes"
	KindCharges                 = "emulator.instanceCharges"
	KindCapacity                = "emulator.capacity"
)

// KindReservations is where the admin API seeds reservations (owned by the compute package).
const KindReservations = compute.KindReservations

// prefix starts every Compute route pattern.
const prefix = "/compute/v1/projects/{project}"

// Service is the instances family bound to the emulator core.
type Service struct {
	*core.Server

	ipam   *ipam
	index  *index
	serial *serialLogs
	timers *timers

	hookMu sync.Mutex
	rt     Runtime
	md     MetadataServers
	worker *runtimeWorker

	events *hostEvents // notice windows and timers of host events (hostevents.go)

	frMu sync.Mutex // one future-reservation sweep at a time (future_reservations_clock.go)
}

// Register mounts the instances family (instances, bulkInsert, templates, resource policies, reservations) and
// its admin routes on srv, and returns the service so a runtime and metadata servers can be attached.
func Register(srv *core.Server) *Service {
	s := &Service{Server: srv, serial: newSerialLogs(), timers: newTimers()}
	s.ipam = newIPAM(s)
	s.index = newIndex()
	s.routes()
	s.hostEventsInit()
	s.startFutureReservationClock()
	srv.Store.Watch(s.onChange)
	srv.Provide("instances", s)
	srv.OnClose(s.close)
	return s
}

func (s *Service) routes() {
	s.instanceRoutes()
	s.bulkRoutes()
	s.templateRoutes()
	s.policyRoutes()
	s.reservationRoutes()
	s.reservationMutationRoutes()
	s.futureReservationRoutes()
	s.adminRoutes()
}

// InstanceKey is the store key of an instance.
func InstanceKey(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/instances/%s", project, zone, name)
}

// ParseInstanceKey splits an instance key into its parts.
func ParseInstanceKey(key string) (project, zone, name string, ok bool) {
	p := strings.Split(key, "/")
	if len(p) != 6 || p[0] != "projects" || p[2] != "zones" || p[4] != "instances" {
		return "", "", "", false
	}
	return p[1], p[3], p[5], true
}

// Instance returns a stored instance.
func (s *Service) Instance(key string) (*computepb.Instance, bool) {
	var inst computepb.Instance
	ok, err := s.Store.Get(KindInstances, key, &inst)
	if !ok || err != nil {
		return nil, false
	}
	return &inst, true
}

// KeyByIP returns the key of the instance whose primary interface has ip (the metadata server's way to tell VMs
// apart by source address). With overlapping VPC ranges the first match wins.
func (s *Service) KeyByIP(ip string) (string, bool) { return s.index.keyByIP(ip) }

// handle registers a route (the router adds requestId idempotency to mutating Compute methods).
func (s *Service) handle(pattern, method string, class core.Class, h http.HandlerFunc) {
	s.Router.Handle(pattern, method, class, h)
}

func fail(w http.ResponseWriter, r *http.Request, err error) { core.WriteError(w, r, err) }

func (s *Service) zone(w http.ResponseWriter, r *http.Request) (string, bool) {
	return compute.PathZone(w, r)
}

func (s *Service) region(w http.ResponseWriter, r *http.Request) (string, bool) {
	return compute.PathRegion(w, r)
}

func (s *Service) getRaw(w http.ResponseWriter, r *http.Request, kind, key string) {
	compute.AnswerStored(w, r, s.Store, kind, key)
}

// list answers a Compute list of the resources of kind under keyPrefix (which ends in "/").
func (s *Service) list(w http.ResponseWriter, r *http.Request, listKind, kind, keyPrefix string) {
	s.listRecords(w, r, listKind, strings.TrimSuffix(keyPrefix, "/"), s.Store.List(kind, keyPrefix))
}

func (s *Service) listRecords(w http.ResponseWriter, r *http.Request, listKind, collection string, recs []core.Record) {
	items, next, err := core.Page(r, recs)
	if err != nil {
		fail(w, r, err)
		return
	}
	body := map[string]any{"kind": listKind, "id": collection, "selfLink": core.SelfLink(collection)}
	if len(items) > 0 {
		body["items"] = items
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	core.WriteJSON(w, http.StatusOK, body)
}

// aggregated answers an aggregatedList (core.WriteAggregated).
func (s *Service) aggregated(w http.ResponseWriter, r *http.Request, listKind, field string, recs []core.Record, scopes []string) {
	core.WriteAggregated(w, r, listKind, field, recs, scopes)
}

func zoneScopes() []string   { return compute.ZoneScopes() }
func regionScopes() []string { return compute.RegionScopes() }

func resolveRef(project, scope, collection, ref string) string {
	return core.ResolveRef(project, scope, collection, ref)
}

// lastSegment is the name at the end of a path or URL.
func lastSegment(p string) string { return p[strings.LastIndex(p, "/")+1:] }

// randomFingerprint is a fresh fingerprint: Compute's change on every modification.
func (s *Service) randomFingerprint() string {
	return core.Fingerprint(s.Rand.Hex(16))
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
