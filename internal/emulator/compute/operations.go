package compute

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(operationRoutes) }

func operationRoutes(s *Service) {
	scopes := []struct{ api, path string }{
		{"compute.zoneOperations", prefix + "/zones/{zone}/operations"},
		{"compute.regionOperations", prefix + "/regions/{region}/operations"},
		{"compute.globalOperations", prefix + "/global/operations"},
	}
	for _, sc := range scopes {
		s.handle("GET "+sc.path+"/{operation}", sc.api+".get", core.Read, s.getOperation)
		s.handle("GET "+sc.path, sc.api+".list", core.Read, s.listOperations)
		s.handle("DELETE "+sc.path+"/{operation}", sc.api+".delete", core.Read, s.deleteOperation)
		s.handle("POST "+sc.path+"/{operation}/wait", sc.api+".wait", core.Read, s.waitOperation)
	}
	s.handle("GET "+prefix+"/aggregated/operations", "compute.globalOperations.aggregatedList", core.Read, s.aggregatedOperations)
}

// operationKey derives the store key of the operation a request names, validating the zone or region.
func (s *Service) operationKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	project, name := r.PathValue("project"), r.PathValue("operation")
	zone, region := "", ""
	var ok bool
	if r.PathValue("zone") != "" {
		if zone, ok = s.zone(w, r); !ok {
			return "", false
		}
	}
	if r.PathValue("region") != "" {
		if region, ok = s.region(w, r); !ok {
			return "", false
		}
	}
	return core.OperationKey(project, zone, region, name), true
}

func (s *Service) getOperation(w http.ResponseWriter, r *http.Request) {
	key, ok := s.operationKey(w, r)
	if !ok {
		return
	}
	s.get(w, r, core.KindComputeOperations, key)
}

// waitOperation blocks until the operation is DONE, the client goes away or WaitTimeout passes (Compute:
// "near 2 minutes"), then answers the operation as it stands. A test may shorten the bound with ?timeout=SECONDS.
func (s *Service) waitOperation(w http.ResponseWriter, r *http.Request) {
	key, ok := s.operationKey(w, r)
	if !ok {
		return
	}
	if !s.Store.Exists(core.KindComputeOperations, key) {
		fail(w, r, core.NotFound(key))
		return
	}
	max := s.WaitTimeout
	if t, err := strconv.ParseFloat(r.URL.Query().Get("timeout"), 64); err == nil && t > 0 && time.Duration(t*float64(time.Second)) < max {
		max = time.Duration(t * float64(time.Second))
	}
	s.Ops.Wait(r.Context(), key, max)
	s.get(w, r, core.KindComputeOperations, key)
}

func (s *Service) deleteOperation(w http.ResponseWriter, r *http.Request) {
	key, ok := s.operationKey(w, r)
	if !ok {
		return
	}
	if !s.Store.Delete(core.KindComputeOperations, key) {
		fail(w, r, core.NotFound(key))
		return
	}
	core.WriteJSON(w, http.StatusOK, json.RawMessage(`{}`))
}

func (s *Service) listOperations(w http.ResponseWriter, r *http.Request) {
	key, ok := s.operationKey(w, r)
	if !ok {
		return
	}
	s.list(w, r, "compute#operationList", core.KindComputeOperations, key[:len(key)-len(r.PathValue("operation"))])
}

func (s *Service) aggregatedOperations(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	scopes := append(append([]string{"global"}, regionScopes()...), zoneScopes()...)
	s.aggregated(w, r, "compute#operationAggregatedList", "operations", s.Store.List(core.KindComputeOperations, "projects/"+project+"/"), scopes)
}
