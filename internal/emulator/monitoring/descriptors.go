package monitoring

import (
	"net/http"
	"strings"

	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func descriptorName(project, metricType string) string {
	return "projects/" + project + "/metricDescriptors/" + metricType
}

var (
	metricKinds = map[string]bool{"GAUGE": true, "DELTA": true, "CUMULATIVE": true}
	valueTypes  = map[string]bool{"BOOL": true, "INT64": true, "DOUBLE": true, "STRING": true, "DISTRIBUTION": true}
)

func (s *Service) createDescriptor(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var d monitoring.MetricDescriptor
	if err := readBody(r, &d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	switch {
	case d.Type == "":
		core.WriteError(w, r, badRequest("Field metricDescriptor.type had an invalid value: A metric type must be specified."))
		return
	case !userMetric(d.Type):
		core.WriteError(w, r, badRequest("Field metricDescriptor.type had an invalid value of \"%s\": Only custom metrics (custom.googleapis.com/) and workload metrics (workload.googleapis.com/) can be created.", d.Type))
		return
	case !metricKinds[d.MetricKind]:
		core.WriteError(w, r, badRequest("Field metricDescriptor.metricKind had an invalid value of \"%s\": must be GAUGE, DELTA or CUMULATIVE.", d.MetricKind))
		return
	case !valueTypes[d.ValueType]:
		core.WriteError(w, r, badRequest("Field metricDescriptor.valueType had an invalid value of \"%s\": must be BOOL, INT64, DOUBLE, STRING or DISTRIBUTION.", d.ValueType))
		return
	}
	seen := map[string]bool{}
	for i, l := range d.Labels {
		if l == nil || l.Key == "" || seen[l.Key] {
			core.WriteError(w, r, badRequest("Field metricDescriptor.labels[%d].key had an invalid value: label keys must be non-empty and unique.", i))
			return
		}
		seen[l.Key] = true
		if l.ValueType == "" {
			l.ValueType = "STRING"
		}
	}
	d.Name = descriptorName(project, d.Type)
	// create replaces a descriptor of the same type (the API documents create as create-or-update for
	// custom metrics whose kind and value type are unchanged).
	var cur monitoring.MetricDescriptor
	if ok, _ := s.Store.Get(KindDescriptors, d.Name, &cur); ok && (cur.MetricKind != d.MetricKind || cur.ValueType != d.ValueType) {
		core.WriteError(w, r, badRequest("Field metricDescriptor had an invalid value: Cannot update metric kind or value type of %s (is %s %s).", d.Type, cur.MetricKind, cur.ValueType))
		return
	}
	if err := s.Store.Put(KindDescriptors, d.Name, &d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, &d)
}

func (s *Service) getDescriptor(w http.ResponseWriter, r *http.Request) {
	name := descriptorName(r.PathValue("project"), r.PathValue("type"))
	raw, ok := s.Store.GetRaw(KindDescriptors, name)
	if !ok {
		core.WriteError(w, r, notFound("Could not find descriptor for metric '%s'.", r.PathValue("type")))
		return
	}
	core.WriteJSON(w, http.StatusOK, raw)
}

// deleteDescriptor deletes a user metric's descriptor and, as the API makes its data unreachable, its series.
func (s *Service) deleteDescriptor(w http.ResponseWriter, r *http.Request) {
	project, typ := r.PathValue("project"), r.PathValue("type")
	if !userMetric(typ) {
		core.WriteError(w, r, badRequest("Only custom metrics (custom.googleapis.com/) and workload metrics (workload.googleapis.com/) can be deleted, not '%s'.", typ))
		return
	}
	name := descriptorName(project, typ)
	err := s.Store.Update(func(tx *core.Tx) error {
		if !tx.Delete(KindDescriptors, name) {
			return notFound("Could not find descriptor for metric '%s'.", typ)
		}
		for _, rec := range tx.List(KindTimeSeries, "projects/"+project+"/timeSeries/"+typ+"?") {
			tx.Delete(KindTimeSeries, rec.Key)
		}
		return nil
	})
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{})
}

func (s *Service) listDescriptors(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	clauses, ok := listFilter(w, r, func(path string) bool { return path == "metric.type" }, "descriptors by metric.type")
	if !ok {
		return
	}
	keep := func(rec core.Record) bool {
		typ := strings.TrimPrefix(rec.Key, "projects/"+project+"/metricDescriptors/")
		for _, c := range clauses {
			if !c.match(typ, true) {
				return false
			}
		}
		return true
	}
	recs, next, err := page(r, s.Store.List(KindDescriptors, "projects/"+project+"/metricDescriptors/"), keep)
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	ds, derr := decodeAll[monitoring.MetricDescriptor](recs)
	if derr != nil {
		core.WriteError(w, r, derr)
		return
	}
	core.WriteJSON(w, http.StatusOK, &monitoring.ListMetricDescriptorsResponse{MetricDescriptors: ds, NextPageToken: next})
}
