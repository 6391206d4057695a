// Package monitoring emulates Cloud Monitoring (monitoring.googleapis.com): API v3 under /monitoring/v3/
// (timeSeries create and list, metricDescriptors create, get, list and delete, alertPolicies create, get,
// list, patch and delete) and the Dashboards API v1 under /monitoring/v1/ (dashboards create, get, list,
// patch and delete), in the wire format of the discovery clients google.golang.org/api/monitoring/v3 and
// monitoring/v1, with the public API's validation and error answers where hypercompute depends on them.
//
// Not served: timeSeries aggregation other than ALIGN_NONE without a reducer, filters beyond equality and
// starts_with joined by AND, Monitoring Query Language, groups, uptime checks, services and SLOs,
// notification channels (policies name them; they are not checked), incidents (alert policies are kept, not
// evaluated). GET /emulator/v1/monitoring/timeSeries lists every stored series of every project (admin:
// tests read what agents wrote without knowing the metric types).
package monitoring

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Store kinds. Time series are keyed projects/{p}/timeSeries/{metric type}?{resource}{labels}; the others by
// their resource name.
const (
	KindTimeSeries  = "monitoring.timeSeries"
	KindDescriptors = "monitoring.metricDescriptors"
	KindPolicies    = "monitoring.alertPolicies"
	KindDashboards  = "monitoring.dashboards"
)

const (
	v3 = "/monitoring/v3/projects/{project}"
	v1 = "/monitoring/v1/projects/{project}"
)

// Service is Cloud Monitoring bound to the emulator core.
type Service struct {
	*core.Server
}

// Register mounts Cloud Monitoring on srv.
func Register(srv *core.Server) *Service {
	s := &Service{Server: srv}
	h := func(pattern, method string, class core.Class, fn http.HandlerFunc) {
		srv.Router.Handle(pattern, "monitoring.projects."+method, class, fn)
	}
	h("POST "+v3+"/timeSeries", "timeSeries.create", core.Mutating, s.createTimeSeries)
	h("GET "+v3+"/timeSeries", "timeSeries.list", core.Read, s.listTimeSeries)
	h("POST "+v3+"/metricDescriptors", "metricDescriptors.create", core.Mutating, s.createDescriptor)
	h("GET "+v3+"/metricDescriptors", "metricDescriptors.list", core.Read, s.listDescriptors)
	h("GET "+v3+"/metricDescriptors/{type...}", "metricDescriptors.get", core.Read, s.getDescriptor)
	h("DELETE "+v3+"/metricDescriptors/{type...}", "metricDescriptors.delete", core.Mutating, s.deleteDescriptor)
	h("POST "+v3+"/alertPolicies", "alertPolicies.create", core.Mutating, s.createPolicy)
	h("GET "+v3+"/alertPolicies", "alertPolicies.list", core.Read, s.listPolicies)
	h("GET "+v3+"/alertPolicies/{id}", "alertPolicies.get", core.Read, s.getPolicy)
	h("PATCH "+v3+"/alertPolicies/{id}", "alertPolicies.patch", core.Mutating, s.patchPolicy)
	h("DELETE "+v3+"/alertPolicies/{id}", "alertPolicies.delete", core.Mutating, s.deletePolicy)
	h("POST "+v1+"/dashboards", "dashboards.create", core.Mutating, s.createDashboard)
	h("GET "+v1+"/dashboards", "dashboards.list", core.Read, s.listDashboards)
	h("GET "+v1+"/dashboards/{id}", "dashboards.get", core.Read, s.getDashboard)
	h("PATCH "+v1+"/dashboards/{id}", "dashboards.patch", core.Mutating, s.patchDashboard)
	h("DELETE "+v1+"/dashboards/{id}", "dashboards.delete", core.Mutating, s.deleteDashboard)
	srv.Router.Handle("GET /emulator/v1/monitoring/timeSeries", "emulator.monitoring.timeSeries.list", core.Admin, s.adminTimeSeries)
	return s
}

func badRequest(format string, args ...any) *core.APIError {
	return core.GoogleError(http.StatusBadRequest, format, args...)
}

func notFound(format string, args ...any) *core.APIError {
	return core.GoogleError(http.StatusNotFound, format, args...)
}

// page serves pageSize/pageToken over records sorted by key; keep selects the records the filter matches.
// A token is the last key served, base64-encoded.
func page(r *http.Request, recs []core.Record, keep func(core.Record) bool) ([]core.Record, string, *core.APIError) {
	q := r.URL.Query()
	size := defaultPageSize
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, "", badRequest("Invalid value at 'page_size' (TYPE_INT32), \"%s\"", v)
		}
		if n > 0 && n < size {
			size = n
		}
	}
	after := ""
	if tok := q.Get("pageToken"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || !strings.HasPrefix(string(b), "k:") {
			return nil, "", badRequest("Invalid page token: %s", tok)
		}
		after = strings.TrimPrefix(string(b), "k:")
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
	var out []core.Record
	for _, rec := range recs {
		if (after != "" && rec.Key <= after) || (keep != nil && !keep(rec)) {
			continue
		}
		if len(out) == size {
			return out, base64.RawURLEncoding.EncodeToString([]byte("k:" + out[len(out)-1].Key)), nil
		}
		out = append(out, rec)
	}
	return out, "", nil
}

// defaultPageSize is the largest page the lists answer (alertPolicies and dashboards allow 1000).
const defaultPageSize = 1000

func decodeAll[T any](recs []core.Record) ([]*T, error) {
	out := make([]*T, 0, len(recs))
	for _, rec := range recs {
		v := new(T)
		if err := json.Unmarshal(rec.JSON, v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func readBody(r *http.Request, v any) *core.APIError {
	if err := core.ReadJSON(r, v); err != nil {
		return badRequest("%s", err.Message)
	}
	return nil
}

func boolParam(r *http.Request, name string) (bool, *core.APIError) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, badRequest("Invalid value at '%s' (TYPE_BOOL), \"%s\"", name, s)
	}
	return b, nil
}
