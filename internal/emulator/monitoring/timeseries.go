package monitoring

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// The public API's write rules the emulator enforces.
const (
	// MaxSeriesPerRequest is timeSeries.create's limit.
	MaxSeriesPerRequest = 200
	// maxPoints is how many points the emulator keeps per series (oldest dropped): it stores what tests and
	// the local runtime write, not Monitoring's 6 weeks, and rewrites a series' record on every point.
	maxPoints = 500
)

// userPrefixes are the metric type prefixes a client may write.
var userPrefixes = []string{"custom.googleapis.com/", "workload.googleapis.com/"}

// requiredResourceLabels are the labels each served monitored resource type takes, all required.
var requiredResourceLabels = map[string][]string{
	"gce_instance": {"project_id", "instance_id", "zone"},
	"global":       {"project_id"},
	"generic_node": {"project_id", "location", "namespace", "node_id"},
}

func userMetric(t string) bool {
	return slices.ContainsFunc(userPrefixes, func(p string) bool { return strings.HasPrefix(t, p) && len(t) > len(p) })
}

// seriesKey identifies a series: project, metric type and labels, monitored resource type and labels.
func seriesKey(project string, ts *monitoring.TimeSeries) string {
	enc := func(m map[string]string) string {
		v := url.Values{}
		for k, s := range m {
			v.Set(k, s)
		}
		return v.Encode()
	}
	return "projects/" + project + "/timeSeries/" + ts.Metric.Type + "?" + enc(ts.Metric.Labels) + "#" + ts.Resource.Type + "?" + enc(ts.Resource.Labels)
}

func (s *Service) createTimeSeries(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var req monitoring.CreateTimeSeriesRequest
	if err := readBody(r, &req); err != nil {
		core.WriteError(w, r, err)
		return
	}
	if err := validateRequest(&req); err != nil {
		core.WriteError(w, r, err)
		return
	}
	var failures []seriesFailure
	err := s.Store.Update(func(tx *core.Tx) error {
		for i, ts := range req.TimeSeries {
			if msg := s.writeSeries(tx, project, ts); msg != "" {
				failures = append(failures, seriesFailure{index: i, message: msg})
			}
		}
		return nil
	})
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if len(failures) > 0 {
		core.WriteError(w, r, partialFailure(len(req.TimeSeries), failures))
		return
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{})
}

// validateRequest refuses a request as a whole, writing nothing, as the API does for malformed series.
func validateRequest(req *monitoring.CreateTimeSeriesRequest) *core.APIError {
	n := len(req.TimeSeries)
	if n == 0 {
		return badRequest("Field timeSeries had an invalid value: At least one TimeSeries must be specified.")
	}
	if n > MaxSeriesPerRequest {
		return badRequest("Field timeSeries had an invalid value: A maximum of %d TimeSeries can be written in a single request, but %d were given.", MaxSeriesPerRequest, n)
	}
	seen := map[string]bool{}
	for i, ts := range req.TimeSeries {
		f := fmt.Sprintf("timeSeries[%d]", i)
		switch {
		case ts == nil || ts.Metric == nil || ts.Metric.Type == "":
			return badRequest("Field %s.metric.type had an invalid value: A metric type must be specified.", f)
		case !userMetric(ts.Metric.Type):
			return badRequest("Field %s.metric.type had an invalid value of \"%s\": Only custom metrics (custom.googleapis.com/) and workload metrics (workload.googleapis.com/) can be written.", f, ts.Metric.Type)
		case ts.Resource == nil || ts.Resource.Type == "":
			return badRequest("Field %s.resource.type had an invalid value: A monitored resource type must be specified.", f)
		case len(ts.Points) != 1:
			return badRequest("Field %s.points had an invalid value: Only one point can be written per TimeSeries per request.", f)
		}
		if k := seriesKey("", ts); seen[k] {
			return badRequest("Field %s had an invalid value: Duplicate TimeSeries encountered. Only one point can be written per TimeSeries per request.", f)
		} else {
			seen[k] = true
		}
		if ts.MetricKind != "" && ts.MetricKind != "GAUGE" && ts.MetricKind != "CUMULATIVE" && ts.MetricKind != "DELTA" {
			return badRequest("Field %s.metric_kind had an invalid value of \"%s\".", f, ts.MetricKind)
		}
	}
	return nil
}

type seriesFailure struct {
	index   int
	message string
}

// partialFailure is the answer when some series were refused: the others were written; the error carries a
// CreateTimeSeriesSummary like the API's.
func partialFailure(total int, failures []seriesFailure) *core.APIError {
	first := failures[0]
	msg := fmt.Sprintf("One or more TimeSeries could not be written: %s: timeSeries[%d]", first.message, first.index)
	if len(failures) > 1 {
		var more []string
		for _, f := range failures[1:] {
			more = append(more, fmt.Sprintf("%s: timeSeries[%d]", f.message, f.index))
		}
		msg += "; " + strings.Join(more, "; ")
	}
	var errs []any
	for _, f := range failures {
		errs = append(errs, map[string]any{"status": map[string]any{"code": 3, "message": f.message}, "pointCount": 1})
	}
	e := badRequest("%s", msg)
	e.Details = []any{map[string]any{
		"@type":             "type.googleapis.com/google.monitoring.v3.CreateTimeSeriesSummary",
		"totalPointCount":   total,
		"successPointCount": total - len(failures),
		"errors":            errs,
	}}
	return e
}

// writeSeries stores one series' point; a non-empty answer is why it was refused.
func (s *Service) writeSeries(tx *core.Tx, project string, ts *monitoring.TimeSeries) string {
	want, ok := requiredResourceLabels[ts.Resource.Type]
	if !ok {
		return fmt.Sprintf("Unrecognized resource type: %s", ts.Resource.Type)
	}
	var missing []string
	for _, l := range want {
		if ts.Resource.Labels[l] == "" {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("The set of resource labels is incomplete. Missing labels: (%s).", strings.Join(missing, " "))
	}
	for k := range ts.Resource.Labels {
		if !slices.Contains(want, k) {
			return fmt.Sprintf("Unrecognized resource label: %s", k)
		}
	}
	p := ts.Points[0]
	valueType, verr := pointValueType(p)
	if verr != "" {
		return verr
	}
	kind := ts.MetricKind
	if kind == "" {
		kind = "GAUGE"
	}
	end, start, terr := pointTimes(p, kind)
	if terr != "" {
		return terr
	}
	if msg := s.ensureDescriptor(tx, project, ts.Metric, kind, valueType, ts.Unit); msg != "" {
		return msg
	}
	key := seriesKey(project, ts)
	var cur monitoring.TimeSeries
	found, err := tx.Get(KindTimeSeries, key, &cur)
	if err != nil {
		return err.Error()
	}
	if found && len(cur.Points) > 0 {
		last, _ := time.Parse(time.RFC3339Nano, cur.Points[0].Interval.EndTime)
		if !end.After(last) {
			return "Points must be written in order. One or more of the points specified had an older end time than the most recent point."
		}
		if kind == "CUMULATIVE" && !start.IsZero() && start.Before(last) && cur.Points[0].Interval.StartTime != p.Interval.StartTime {
			return "Points must be written in order. One or more of the points specified had an older start time than the most recent point."
		}
	} else {
		cur = monitoring.TimeSeries{Metric: ts.Metric, Resource: ts.Resource, MetricKind: kind, ValueType: valueType, Unit: ts.Unit}
	}
	stored := &monitoring.Point{Interval: &monitoring.TimeInterval{EndTime: end.UTC().Format(time.RFC3339Nano)}, Value: p.Value}
	if !start.IsZero() {
		stored.Interval.StartTime = start.UTC().Format(time.RFC3339Nano)
	}
	cur.Points = append([]*monitoring.Point{stored}, cur.Points...)
	if len(cur.Points) > maxPoints {
		cur.Points = cur.Points[:maxPoints]
	}
	if err := tx.Put(KindTimeSeries, key, &cur); err != nil {
		return err.Error()
	}
	return ""
}

func pointValueType(p *monitoring.Point) (string, string) {
	if p == nil || p.Value == nil {
		return "", "The point's value must be set."
	}
	v := p.Value
	var types []string
	if v.BoolValue != nil {
		types = append(types, "BOOL")
	}
	if v.Int64Value != nil {
		types = append(types, "INT64")
	}
	if v.DoubleValue != nil {
		types = append(types, "DOUBLE")
	}
	if v.StringValue != nil {
		types = append(types, "STRING")
	}
	if v.DistributionValue != nil {
		types = append(types, "DISTRIBUTION")
	}
	if len(types) != 1 {
		return "", "The point's value must set exactly one of boolValue, int64Value, doubleValue, stringValue, distributionValue."
	}
	return types[0], ""
}

// pointTimes reads a point's interval: endTime is required; a GAUGE's startTime, if given, equals it; a
// CUMULATIVE or DELTA point needs a startTime before its endTime.
func pointTimes(p *monitoring.Point, kind string) (end, start time.Time, msg string) {
	if p.Interval == nil || p.Interval.EndTime == "" {
		return end, start, "The point's interval.endTime must be set."
	}
	end, err := time.Parse(time.RFC3339Nano, p.Interval.EndTime)
	if err != nil {
		return end, start, fmt.Sprintf("Invalid interval.endTime %q.", p.Interval.EndTime)
	}
	if p.Interval.StartTime != "" {
		if start, err = time.Parse(time.RFC3339Nano, p.Interval.StartTime); err != nil {
			return end, start, fmt.Sprintf("Invalid interval.startTime %q.", p.Interval.StartTime)
		}
	}
	switch kind {
	case "GAUGE":
		if !start.IsZero() && !start.Equal(end) {
			return end, start, "The start time must be equal to the end time for the gauge metric."
		}
		start = time.Time{}
	default:
		if start.IsZero() || !start.Before(end) {
			return end, start, fmt.Sprintf("The start time must be before the end time for the %s metric.", strings.ToLower(kind))
		}
	}
	return end, start, ""
}

// ensureDescriptor auto-creates the series' metric descriptor, or checks the series against it (kind and
// value type; label keys new to it are added, as auto-created descriptors take them).
func (s *Service) ensureDescriptor(tx *core.Tx, project string, m *monitoring.Metric, kind, valueType, unit string) string {
	name := descriptorName(project, m.Type)
	var d monitoring.MetricDescriptor
	found, err := tx.Get(KindDescriptors, name, &d)
	if err != nil {
		return err.Error()
	}
	if !found {
		d = monitoring.MetricDescriptor{Name: name, Type: m.Type, MetricKind: kind, ValueType: valueType, Unit: unit,
			Description: "Auto created custom metric.", DisplayName: m.Type}
	} else {
		if d.MetricKind != kind {
			return fmt.Sprintf("Metric kind for metric %s must be %s, but is %s.", m.Type, d.MetricKind, kind)
		}
		if d.ValueType != valueType {
			return fmt.Sprintf("Value type for metric %s must be %s, but is %s.", m.Type, d.ValueType, valueType)
		}
	}
	have := map[string]bool{}
	for _, l := range d.Labels {
		have[l.Key] = true
	}
	changed := !found
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		if !have[k] {
			d.Labels = append(d.Labels, &monitoring.LabelDescriptor{Key: k, ValueType: "STRING"})
			changed = true
		}
	}
	if changed {
		if err := tx.Put(KindDescriptors, name, &d); err != nil {
			return err.Error()
		}
	}
	return ""
}

func (s *Service) listTimeSeries(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	q := r.URL.Query()
	match, err := seriesFilter(q.Get("filter"))
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if a := q.Get("aggregation.perSeriesAligner"); (a != "" && a != "ALIGN_NONE") || q.Get("aggregation.crossSeriesReducer") != "" && q.Get("aggregation.crossSeriesReducer") != "REDUCE_NONE" {
		core.WriteError(w, r, core.GoogleError(http.StatusNotImplemented, "The emulator does not serve aggregation (perSeriesAligner %q, crossSeriesReducer %q); list without it.", a, q.Get("aggregation.crossSeriesReducer")))
		return
	}
	endS := q.Get("interval.endTime")
	if endS == "" {
		core.WriteError(w, r, badRequest("Field interval.endTime had an invalid value: The end time must be specified."))
		return
	}
	end, perr := time.Parse(time.RFC3339Nano, endS)
	if perr != nil {
		core.WriteError(w, r, badRequest("Invalid value at 'interval.end_time' (type.googleapis.com/google.protobuf.Timestamp), Field 'endTime', Invalid time format: %s", endS))
		return
	}
	start := end
	if s := q.Get("interval.startTime"); s != "" {
		if start, perr = time.Parse(time.RFC3339Nano, s); perr != nil {
			core.WriteError(w, r, badRequest("Invalid value at 'interval.start_time' (type.googleapis.com/google.protobuf.Timestamp), Field 'startTime', Invalid time format: %s", s))
			return
		}
		if start.After(end) {
			core.WriteError(w, r, badRequest("Field interval.startTime had an invalid value: The start time must be before or equal to the end time."))
			return
		}
	}
	headers := q.Get("view") == "HEADERS"
	recs := s.Store.List(KindTimeSeries, "projects/"+project+"/timeSeries/")
	var series []*monitoring.TimeSeries
	var keep []core.Record
	for _, rec := range recs {
		var ts monitoring.TimeSeries
		if rec.Decode(&ts) != nil || !match(&ts) {
			continue
		}
		var pts []*monitoring.Point
		for _, p := range ts.Points {
			t, _ := time.Parse(time.RFC3339Nano, p.Interval.EndTime)
			// A point is in the interval when its end time is in (start, end], or equals end for a point
			// in time.
			if !t.After(end) && (t.After(start) || t.Equal(end)) {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		keep = append(keep, rec)
		ts.Points = pts
		if headers {
			ts.Points = nil
		}
		series = append(series, &ts)
	}
	byKey := map[string]*monitoring.TimeSeries{}
	for i, rec := range keep {
		byKey[rec.Key] = series[i]
	}
	got, next, perr2 := page(r, keep, nil)
	if perr2 != nil {
		core.WriteError(w, r, perr2)
		return
	}
	out := &monitoring.ListTimeSeriesResponse{NextPageToken: next, TimeSeries: []*monitoring.TimeSeries{}}
	for _, rec := range got {
		out.TimeSeries = append(out.TimeSeries, byKey[rec.Key])
	}
	core.WriteJSON(w, http.StatusOK, out)
}

// seriesFilter compiles timeSeries.list's filter: metric.type is required; resource.type and metric and
// resource label terms narrow it.
func seriesFilter(f string) (func(*monitoring.TimeSeries) bool, *core.APIError) {
	if strings.TrimSpace(f) == "" {
		return nil, badRequest("Field filter had an invalid value of \"\": The filter must specify a metric type.")
	}
	clauses, err := parseFilter(f)
	if err != nil {
		return nil, badRequest("Field filter had an invalid value of \"%s\": %v", f, err)
	}
	hasType := false
	for _, c := range clauses {
		switch {
		case c.path == "metric.type":
			hasType = true
		case c.path == "resource.type", c.path == "project":
		default:
			_, ml := labelPath(c.path, "metric")
			_, rl := labelPath(c.path, "resource")
			if !ml && !rl {
				return nil, badRequest("Field filter had an invalid value of \"%s\": the emulator does not serve the field %q.", f, c.path)
			}
		}
	}
	if !hasType {
		return nil, badRequest("Field filter had an invalid value of \"%s\": The filter must specify a metric type.", f)
	}
	return func(ts *monitoring.TimeSeries) bool {
		for _, c := range clauses {
			var v string
			var ok bool
			switch {
			case c.path == "metric.type":
				v, ok = ts.Metric.Type, true
			case c.path == "resource.type":
				v, ok = ts.Resource.Type, true
			case c.path == "project":
				v, ok = ts.Resource.Labels["project_id"]
			default:
				if k, is := labelPath(c.path, "metric"); is {
					v, ok = ts.Metric.Labels[k]
				} else if k, is := labelPath(c.path, "resource"); is {
					v, ok = ts.Resource.Labels[k]
				}
			}
			if !c.match(v, ok) {
				return false
			}
		}
		return true
	}, nil
}

// adminTimeSeries answers every stored series (all projects, all points, newest first), optionally of one
// project (?project=) and metric type prefix (?prefix=).
func (s *Service) adminTimeSeries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out := []*monitoring.TimeSeries{}
	for _, rec := range s.Store.List(KindTimeSeries, "") {
		var ts monitoring.TimeSeries
		if rec.Decode(&ts) != nil {
			continue
		}
		if p := q.Get("project"); p != "" && !strings.HasPrefix(rec.Key, "projects/"+p+"/") {
			continue
		}
		if !strings.HasPrefix(ts.Metric.Type, q.Get("prefix")) {
			continue
		}
		out = append(out, &ts)
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"timeSeries": out})
}
