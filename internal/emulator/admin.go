package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/monitoring"
)

// The admin API (documented in the README) lives under /emulator/v1. Its calls are neither counted nor subject to
// faults.
const adminPrefix = "/emulator/v1"

func registerAdmin(e *Emulator) {
	rt := e.srv.Router
	h := func(pattern, name string, fn http.HandlerFunc) { rt.Handle(pattern, "emulator."+name, core.Admin, fn) }

	h("GET "+adminPrefix+"/healthz", "healthz", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "pendingOperations": e.srv.Ops.Pending()})
	})
	h("POST "+adminPrefix+"/reset", "reset", func(w http.ResponseWriter, r *http.Request) {
		e.Reset()
		core.WriteJSON(w, http.StatusOK, map[string]any{})
	})
	h("GET "+adminPrefix+"/calls", "calls.get", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, e.srv.Calls.Snapshot())
	})
	resetCalls := func(w http.ResponseWriter, r *http.Request) {
		e.srv.Calls.Reset()
		core.WriteJSON(w, http.StatusOK, e.srv.Calls.Snapshot())
	}
	h("POST "+adminPrefix+"/calls:reset", "calls.reset", resetCalls)
	h("DELETE "+adminPrefix+"/calls", "calls.delete", resetCalls)
	h("GET "+adminPrefix+"/inventory", "inventory", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, e.Inventory(r.URL.Query().Get("all") == "true"))
	})
	h("GET "+adminPrefix+"/faults", "faults.get", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, e.srv.Faults.Spec())
	})
	h("POST "+adminPrefix+"/faults", "faults.set", func(w http.ResponseWriter, r *http.Request) {
		var spec core.FaultSpec
		if err := decodeStrict(r, &spec); err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		if err := e.srv.Faults.Apply(spec); err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, e.srv.Faults.Spec())
	})
	h("DELETE "+adminPrefix+"/faults", "faults.clear", func(w http.ResponseWriter, r *http.Request) {
		e.srv.Faults.Clear()
		core.WriteJSON(w, http.StatusOK, e.srv.Faults.Spec())
	})
	h("GET "+adminPrefix+"/quotas", "quotas.get", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, QuotaList{Quotas: e.srv.Quotas.List(r.URL.Query().Get("region"))})
	})
	h("POST "+adminPrefix+"/quotas", "quotas.set", func(w http.ResponseWriter, r *http.Request) {
		var req QuotaRequest
		if err := decodeStrict(r, &req); err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		for i, l := range req.Limits {
			if l.Region == "" || l.Metric == "" {
				adminError(w, http.StatusBadRequest, fmt.Errorf("limits[%d]: region and metric are required", i))
				return
			}
			if l.Region != "global" && !catalog.IsRegion(l.Region) {
				adminError(w, http.StatusBadRequest, fmt.Errorf("limits[%d]: unknown region %q", i, l.Region))
				return
			}
		}
		for _, l := range req.Limits {
			e.srv.Quotas.SetLimit(l.Region, l.Metric, l.Limit)
		}
		core.WriteJSON(w, http.StatusOK, QuotaList{Quotas: e.srv.Quotas.List("")})
	})
	h("DELETE "+adminPrefix+"/quotas", "quotas.clear", func(w http.ResponseWriter, r *http.Request) {
		for _, q := range e.srv.Quotas.List("") {
			e.srv.Quotas.SetLimit(q.Region, q.Metric, -1)
		}
		core.WriteJSON(w, http.StatusOK, QuotaList{Quotas: e.srv.Quotas.List("")})
	})
	h("GET "+adminPrefix+"/clock", "clock.get", func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, Clock{Now: core.Timestamp(e.srv.Now())})
	})
	h("POST "+adminPrefix+"/clock:advance", "clock.advance", func(w http.ResponseWriter, r *http.Request) {
		var req ClockAdvance
		if err := decodeStrict(r, &req); err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		d, err := time.ParseDuration(req.By)
		if err != nil {
			adminError(w, http.StatusBadRequest, fmt.Errorf("by: %q is not a duration such as 90m", req.By))
			return
		}
		if err := e.srv.Advance(d); err != nil {
			adminError(w, http.StatusBadRequest, fmt.Errorf("by: %w", err))
			return
		}
		core.WriteJSON(w, http.StatusOK, Clock{Now: core.Timestamp(e.srv.Now())})
	})
	h("POST "+adminPrefix+"/reservations", "reservations.seed", func(w http.ResponseWriter, r *http.Request) {
		var req ReservationRequest
		if err := decodeStrict(r, &req); err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		var res computepb.Reservation
		if len(req.Reservation) > 0 {
			if e := core.ReadJSONBytes(req.Reservation, &res); e != nil {
				adminError(w, http.StatusBadRequest, fmt.Errorf("reservation: %s", e.Message))
				return
			}
		}
		out, err := e.SeedReservation(req.Project, req.Zone, &res)
		if err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, out)
	})
	h("POST "+adminPrefix+"/state:save", "state.save", func(w http.ResponseWriter, r *http.Request) {
		if err := e.SaveState(); err != nil {
			adminError(w, http.StatusInternalServerError, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, map[string]any{"stateFile": e.cfg.StateFile})
	})
	registerHostFaults(e)
	registerGPUFaults(e)
}

// QuotaRequest is the body of POST /emulator/v1/quotas.
type QuotaRequest struct {
	Limits []QuotaLimit `json:"limits"`
}

// QuotaLimit sets one limit; Limit < 0 removes it. Region "global" holds project-wide metrics.
type QuotaLimit struct {
	Region string  `json:"region"`
	Metric string  `json:"metric"`
	Limit  float64 `json:"limit"`
}

// QuotaList is the answer of the quota admin calls.
type QuotaList struct {
	Quotas []core.Quota `json:"quotas"`
}

// ClockAdvance is the body of POST /emulator/v1/clock:advance: how far to move the emulator's clock forward
// (a Go duration, "2h30m"), so time-driven events such as a calendar reservation's delivery happen now.
type ClockAdvance struct {
	By string `json:"by"`
}

// Clock is the emulator's time after a move (and GET /emulator/v1/clock's answer).
type Clock struct {
	Now string `json:"now"`
}

// ReservationRequest is the body of POST /emulator/v1/reservations: a Compute Reservation (protojson) to hold
// in project/zone.
type ReservationRequest struct {
	Project     string          `json:"project"`
	Zone        string          `json:"zone"`
	Reservation json.RawMessage `json:"reservation"`
}

// SeedReservation stores a reservation as Compute would show it (under compute.KindReservations, key
// projects/P/zones/Z/reservations/N), filling the server-owned fields.
func (e *Emulator) SeedReservation(project, zone string, res *computepb.Reservation) (*computepb.Reservation, error) {
	if project == "" {
		return nil, fmt.Errorf("project is required")
	}
	if _, ok := catalog.Zone(zone); !ok {
		return nil, fmt.Errorf("unknown zone %q", zone)
	}
	if !core.ValidName(res.GetName()) {
		return nil, fmt.Errorf("reservation name %q must match %s", res.GetName(), core.NameRegex)
	}
	key := fmt.Sprintf("projects/%s/zones/%s/reservations/%s", project, zone, res.GetName())
	res = proto.Clone(res).(*computepb.Reservation)
	res.Kind = proto.String("compute#reservation")
	if res.Id == nil {
		res.Id = proto.Uint64(e.srv.Rand.ID())
	}
	if res.CreationTimestamp == nil {
		res.CreationTimestamp = proto.String(core.Timestamp(e.srv.Now()))
	}
	res.SelfLink = proto.String(core.SelfLink(key))
	res.Zone = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", project, zone)))
	if res.Status == nil {
		res.Status = proto.String("READY")
	}
	if sr := res.SpecificReservation; sr != nil {
		if sr.InUseCount == nil {
			sr.InUseCount = proto.Int64(0)
		}
		if sr.AssuredCount == nil {
			sr.AssuredCount = sr.Count
		}
	}
	if err := e.srv.Store.Put(compute.KindReservations, key, res); err != nil {
		return nil, err
	}
	return res, nil
}

// Inventory is every resource the emulator holds, by store kind.
type Inventory struct {
	Total int                        `json:"total"`
	Kinds map[string][]InventoryItem `json:"kinds"`
}

// InventoryItem is one held resource.
type InventoryItem struct {
	Key      string          `json:"key"`
	Name     string          `json:"name"`
	SelfLink string          `json:"selfLink,omitempty"`
	Resource json.RawMessage `json:"resource"`
}

// Count returns how many resources of kind are held.
func (inv Inventory) Count(kind string) int { return len(inv.Kinds[kind]) }

// Names returns the names of the held resources of kind, in key order.
func (inv Inventory) Names(kind string) []string {
	var out []string
	for _, it := range inv.Kinds[kind] {
		out = append(out, it.Name)
	}
	return out
}

// internalKind marks bookkeeping kinds the inventory leaves out unless asked for everything.
func internalKind(kind string) bool {
	return kind == core.KindComputeOperations || kind == core.KindLROs || strings.HasPrefix(kind, "emulator.") ||
		// Series the agents wrote and the descriptors they auto-created are monitoring data, which
		// Cloud Monitoring keeps after the VMs are gone and no resource owns (GET
		// /emulator/v1/monitoring/timeSeries lists them).
		kind == monitoring.KindTimeSeries || kind == monitoring.KindDescriptors
}

// Inventory lists the held resources; all includes operations and the quota ledger.
func (e *Emulator) Inventory(all bool) Inventory {
	inv := Inventory{Kinds: map[string][]InventoryItem{}}
	for _, kind := range e.srv.Store.Kinds() {
		if !all && internalKind(kind) {
			continue
		}
		for _, rec := range e.srv.Store.List(kind, "") {
			var probe struct {
				Name     string `json:"name"`
				SelfLink string `json:"selfLink"`
			}
			_ = json.Unmarshal(rec.JSON, &probe)
			name := probe.Name
			if i := strings.LastIndex(name, "/"); i >= 0 {
				name = name[i+1:]
			}
			if name == "" {
				name = rec.Key[strings.LastIndex(rec.Key, "/")+1:]
			}
			inv.Kinds[kind] = append(inv.Kinds[kind], InventoryItem{Key: rec.Key, Name: name, SelfLink: probe.SelfLink, Resource: rec.JSON})
			inv.Total++
		}
	}
	return inv
}

func decodeStrict(r *http.Request, v any) error {
	d := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 8<<20))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("invalid request body: %w", err)
	}
	return nil
}

func adminError(w http.ResponseWriter, code int, err error) {
	core.WriteJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": err.Error(), "status": core.StatusName(code)}})
}
