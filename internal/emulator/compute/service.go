// Package compute emulates the Compute Engine v1 REST API (networking, catalog, operations; instances and
// friends live in this package's instances*.go files). Resources are kept in the core store as protojson of the
// computepb types, so the wire format is the official Go client's.
package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Store kinds of the Compute resources. Keys are relative paths ("projects/P/global/networks/N").
const (
	KindNetworks        = "compute.networks"        // projects/P/global/networks/N
	KindSubnetworks     = "compute.subnetworks"     // projects/P/regions/R/subnetworks/S
	KindFirewalls       = "compute.firewalls"       // projects/P/global/firewalls/F
	KindRouters         = "compute.routers"         // projects/P/regions/R/routers/R
	KindGlobalAddresses = "compute.globalAddresses" // projects/P/global/addresses/A
	KindAddresses       = "compute.addresses"       // projects/P/regions/R/addresses/A
	// KindReservations holds reservations seeded through the admin API (POST /emulator/v1/reservations);
	// key projects/P/zones/Z/reservations/N, value a computepb.Reservation.
	KindReservations = "compute.reservations"
)

// prefix starts every Compute route pattern.
const prefix = "/compute/v1/projects/{project}"

// Service is the Compute API bound to the emulator core.
type Service struct {
	*core.Server
}

// routeSets are the route registrations of this package's files; each file adds its own in init(), so the
// instances*.go files plug in without touching Register.
var routeSets []func(*Service)

func addRoutes(f func(*Service)) { routeSets = append(routeSets, f) }

// Register mounts the Compute API on srv.
func Register(srv *core.Server) {
	s := &Service{Server: srv}
	for _, f := range routeSets {
		f(s)
	}
	srv.Provide("compute", s)
}

// handle registers a Compute route (the core router adds requestId idempotency to mutating ones).
func (s *Service) handle(pattern, method string, class core.Class, h http.HandlerFunc) {
	s.Router.Handle(pattern, method, class, h)
}

func fail(w http.ResponseWriter, r *http.Request, err error) { core.WriteError(w, r, err) }

// decode reads a request body into a computepb message, answering 400 itself on failure.
func decode(w http.ResponseWriter, r *http.Request, m proto.Message) bool {
	if err := core.ReadJSON(r, m); err != nil {
		fail(w, r, err)
		return false
	}
	return true
}

// PathZone is the {zone} of a Compute request, checked against the catalog; for an unknown zone it answers
// Compute's 404 itself and reports false.
func PathZone(w http.ResponseWriter, r *http.Request) (string, bool) {
	z := r.PathValue("zone")
	if _, ok := catalog.Zone(z); !ok {
		fail(w, r, core.NotFound(fmt.Sprintf("projects/%s/zones/%s", r.PathValue("project"), z)))
		return "", false
	}
	return z, true
}

// PathRegion is PathZone for {region}.
func PathRegion(w http.ResponseWriter, r *http.Request) (string, bool) {
	reg := r.PathValue("region")
	if !catalog.IsRegion(reg) {
		fail(w, r, core.NotFound(fmt.Sprintf("projects/%s/regions/%s", r.PathValue("project"), reg)))
		return "", false
	}
	return reg, true
}

func (s *Service) zone(w http.ResponseWriter, r *http.Request) (string, bool) { return PathZone(w, r) }
func (s *Service) region(w http.ResponseWriter, r *http.Request) (string, bool) {
	return PathRegion(w, r)
}

// AnswerStored answers the resource of kind at key as stored, or Compute's 404.
func AnswerStored(w http.ResponseWriter, r *http.Request, st Reader, kind, key string) {
	if b, ok := st.GetRaw(kind, key); ok {
		core.WriteJSON(w, http.StatusOK, b)
		return
	}
	fail(w, r, core.NotFound(key))
}

func (s *Service) get(w http.ResponseWriter, r *http.Request, kind, key string) {
	AnswerStored(w, r, s.Store, kind, key)
}

// list answers a Compute list ({kind, id, items, selfLink, nextPageToken}) of the resources under keyPrefix.
func (s *Service) list(w http.ResponseWriter, r *http.Request, listKind, kind, keyPrefix string) {
	items, next, err := core.Page(r, s.Store.List(kind, keyPrefix))
	if err != nil {
		fail(w, r, err)
		return
	}
	collection := strings.TrimSuffix(keyPrefix, "/")
	core.WriteJSON(w, http.StatusOK, listBody(listKind, collection, items, next))
}

func listBody(listKind, collection string, items []json.RawMessage, next string) map[string]any {
	body := map[string]any{"kind": listKind, "id": collection, "selfLink": core.SelfLink(collection)}
	if len(items) > 0 {
		body["items"] = items
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	return body
}

// aggregated answers an aggregatedList (core.WriteAggregated).
func (s *Service) aggregated(w http.ResponseWriter, r *http.Request, listKind, field string, recs []core.Record, scopes []string) {
	core.WriteAggregated(w, r, listKind, field, recs, scopes)
}

// ZoneScopes are the aggregatedList scopes of the catalog's zones ("zones/Z").
func ZoneScopes() []string {
	var out []string
	for _, z := range catalog.ZoneNames() {
		out = append(out, "zones/"+z)
	}
	return out
}

// RegionScopes are the aggregatedList scopes of the catalog's regions ("regions/R").
func RegionScopes() []string {
	var out []string
	for _, r := range catalog.Regions() {
		out = append(out, "regions/"+r)
	}
	return out
}

func zoneScopes() []string   { return ZoneScopes() }
func regionScopes() []string { return RegionScopes() }

// answerOp writes an operation the way insert/delete/patch calls answer it.
func answerOp(w http.ResponseWriter, op *computepb.Operation) { core.WriteJSON(w, http.StatusOK, op) }

func resolveRef(project, scope, collection, ref string) string {
	return core.ResolveRef(project, scope, collection, ref)
}

// lastSegment is the name at the end of a path or URL.
func lastSegment(p string) string { return p[strings.LastIndex(p, "/")+1:] }

// newMeta fills the fields the server owns on a new resource: kind, id, creationTimestamp, selfLink.
func (s *Service) newMeta(kind, key string) (id uint64, created, selfLink string) {
	return s.Rand.ID(), core.Timestamp(s.Now()), core.SelfLink(key)
}

// opFor starts the operation of a mutation on the resource at key.
func (s *Service) opFor(r *http.Request, key, opType string, targetID uint64, apply func(tx *core.Tx, op *computepb.Operation) error) *computepb.Operation {
	project, zone, region := scopeParts(key)
	return s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Zone: zone, Region: region, OperationType: opType,
		TargetLink: key, TargetID: targetID, Apply: apply,
	})
}

// scopeParts splits a resource key into project, zone and region (one of zone/region empty, both for global).
func scopeParts(key string) (project, zone, region string) {
	if parts := strings.SplitN(key, "/", 3); len(parts) >= 2 {
		project = parts[1]
	}
	switch kind, name, _ := strings.Cut(core.ScopeOf(key), "/"); kind {
	case "zones":
		zone = name
	case "regions":
		region = name
	}
	return project, zone, region
}

// getNamed answers the resource at key; like Compute it also accepts the numeric id in place of the name.
func (s *Service) getNamed(w http.ResponseWriter, r *http.Request, kind, key string) {
	if b, ok := s.findNamed(kind, key); ok {
		core.WriteJSON(w, http.StatusOK, b)
		return
	}
	fail(w, r, core.NotFound(key))
}

// findNamed looks a resource up by key, or by numeric id when the key's last segment is a number.
func (s *Service) findNamed(kind, key string) (json.RawMessage, bool) {
	if b, ok := s.Store.GetRaw(kind, key); ok {
		return b, true
	}
	name := lastSegment(key)
	if _, err := strconv.ParseUint(name, 10, 64); err != nil {
		return nil, false
	}
	for _, rec := range s.Store.List(kind, key[:len(key)-len(name)]) {
		var probe struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(rec.JSON, &probe) == nil && probe.ID == name {
			return rec.JSON, true
		}
	}
	return nil, false
}

// newFingerprint returns a fresh fingerprint: Compute changes it on every modification.
func (s *Service) newFingerprint() string { return core.Fingerprint(s.Rand.Hex(16)) }
