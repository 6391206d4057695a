package monitoring_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/googleapi"
	dashboards "google.golang.org/api/monitoring/v1"
	monitoring "google.golang.org/api/monitoring/v3"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const project = "proj-mon"

type env struct {
	*emulatortest.Env
	ctx  context.Context
	mon  *monitoring.Service
	dash *dashboards.Service
}

func start(t *testing.T) *env {
	t.Helper()
	e := emulatortest.Start(t)
	ctx := context.Background()
	opts := []option.ClientOption{option.WithEndpoint(e.URL + "/monitoring/"), option.WithoutAuthentication()}
	mon, err := monitoring.NewService(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := dashboards.NewService(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &env{Env: e, ctx: ctx, mon: mon, dash: dash}
}

func gauge(metric string, labels map[string]string, instance string, at time.Time, v float64) *monitoring.TimeSeries {
	return &monitoring.TimeSeries{
		Metric:   &monitoring.Metric{Type: metric, Labels: labels},
		Resource: &monitoring.MonitoredResource{Type: "gce_instance", Labels: map[string]string{"project_id": project, "instance_id": instance, "zone": "us-central1-a"}},
		Points:   []*monitoring.Point{{Interval: &monitoring.TimeInterval{EndTime: at.UTC().Format(time.RFC3339Nano)}, Value: &monitoring.TypedValue{DoubleValue: googleapi.Float64(v)}}},
	}
}

func apiErr(t *testing.T, err error, code int, contains string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a %d error containing %q", err, code, contains)
	}
	if ge.Code != code || !strings.Contains(ge.Message, contains) {
		t.Fatalf("got %d %q, want %d containing %q", ge.Code, ge.Message, code, contains)
	}
}

func (e *env) write(series ...*monitoring.TimeSeries) error {
	_, err := e.mon.Projects.TimeSeries.Create("projects/"+project, &monitoring.CreateTimeSeriesRequest{TimeSeries: series}).Context(e.ctx).Do()
	return err
}

// Time series written through the Go client are listed back by metric type and labels, newest point
// first, and their metric descriptor exists; the write rules answer as the API does.
func TestTimeSeriesWriteAndList(t *testing.T) {
	e := start(t)
	const metric = "workload.googleapis.com/hypercompute/goodput"
	t0 := time.Now().Add(-time.Minute).Truncate(time.Second)
	for i := range 3 {
		if err := e.write(gauge(metric, map[string]string{"cluster": "hc"}, "111", t0.Add(time.Duration(i)*10*time.Second), 0.5+float64(i)/10),
			gauge(metric, map[string]string{"cluster": "hc"}, "222", t0.Add(time.Duration(i)*10*time.Second), 0.9)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	list := func(filter string) []*monitoring.TimeSeries {
		t.Helper()
		res, err := e.mon.Projects.TimeSeries.List("projects/" + project).Filter(filter).
			IntervalStartTime(t0.Add(-time.Second).Format(time.RFC3339)).IntervalEndTime(time.Now().Format(time.RFC3339Nano)).Context(e.ctx).Do()
		if err != nil {
			t.Fatalf("list %s: %v", filter, err)
		}
		return res.TimeSeries
	}
	if got := list(`metric.type = "` + metric + `"`); len(got) != 2 {
		t.Fatalf("listed %d series, want 2", len(got))
	}
	got := list(`metric.type = "` + metric + `" AND resource.labels.instance_id = "111" AND metric.labels.cluster = "hc"`)
	if len(got) != 1 || len(got[0].Points) != 3 {
		t.Fatalf("listed %+v, want one series with 3 points", got)
	}
	if v := *got[0].Points[0].Value.DoubleValue; v != 0.7 {
		t.Errorf("newest point = %v, want 0.7 (newest first)", v)
	}
	if got[0].ValueType != "DOUBLE" || got[0].MetricKind != "GAUGE" {
		t.Errorf("series kind %s/%s, want GAUGE/DOUBLE", got[0].MetricKind, got[0].ValueType)
	}
	if got := list(`metric.type = starts_with("workload.googleapis.com/hypercompute/") AND resource.label.instance_id = "333"`); len(got) != 0 {
		t.Errorf("listed %d series of an instance that wrote none", len(got))
	}
	d, err := e.mon.Projects.MetricDescriptors.Get("projects/" + project + "/metricDescriptors/" + metric).Context(e.ctx).Do()
	if err != nil || d.ValueType != "DOUBLE" || len(d.Labels) != 1 || d.Labels[0].Key != "cluster" {
		t.Fatalf("auto-created descriptor %+v, %v", d, err)
	}

	// The API's write rules.
	apiErr(t, e.write(gauge(metric, map[string]string{"cluster": "hc"}, "111", t0, 1)), 400,
		"One or more TimeSeries could not be written: Points must be written in order. One or more of the points specified had an older end time than the most recent point.: timeSeries[0]")
	many := make([]*monitoring.TimeSeries, 201)
	for i := range many {
		many[i] = gauge(metric, map[string]string{"i": string(rune('a' + i%26))}, "1", time.Now(), 1)
	}
	apiErr(t, e.write(many...), 400, "A maximum of 200 TimeSeries can be written in a single request")
	two := gauge(metric, nil, "444", time.Now(), 1)
	two.Points = append(two.Points, two.Points[0])
	apiErr(t, e.write(two), 400, "Field timeSeries[0].points had an invalid value: Only one point can be written per TimeSeries per request.")
	apiErr(t, e.write(gauge("compute.googleapis.com/instance/cpu/utilization", nil, "1", time.Now(), 1)), 400, "Only custom metrics")
	noZone := gauge(metric, nil, "555", time.Now(), 1)
	delete(noZone.Resource.Labels, "zone")
	apiErr(t, e.write(noZone, gauge(metric, nil, "556", time.Now(), 1)), 400, "The set of resource labels is incomplete. Missing labels: (zone).: timeSeries[0]")
	if got := list(`metric.type = "` + metric + `" AND resource.labels.instance_id = "556"`); len(got) != 1 {
		t.Errorf("the valid series of a partly refused request was not written: %d series", len(got))
	}
	intSeries := gauge(metric, nil, "557", time.Now(), 1)
	intSeries.Points[0].Value = &monitoring.TypedValue{Int64Value: googleapi.Int64(3)}
	apiErr(t, e.write(intSeries), 400, "Value type for metric "+metric+" must be DOUBLE, but is INT64.")
	_, err = e.mon.Projects.TimeSeries.List("projects/" + project).Filter(`resource.type = "gce_instance"`).IntervalEndTime(time.Now().Format(time.RFC3339)).Context(e.ctx).Do()
	apiErr(t, err, 400, "The filter must specify a metric type")

	// Deleting the descriptor takes its series along.
	if _, err := e.mon.Projects.MetricDescriptors.Delete("projects/" + project + "/metricDescriptors/" + metric).Context(e.ctx).Do(); err != nil {
		t.Fatal(err)
	}
	if got := list(`metric.type = "` + metric + `"`); len(got) != 0 {
		t.Errorf("%d series left after the descriptor's deletion", len(got))
	}
	_, err = e.mon.Projects.MetricDescriptors.Get("projects/" + project + "/metricDescriptors/" + metric).Context(e.ctx).Do()
	apiErr(t, err, 404, "Could not find descriptor")
}

func threshold(name, metric string, v float64) *monitoring.Condition {
	return &monitoring.Condition{DisplayName: name, ConditionThreshold: &monitoring.MetricThreshold{
		Filter: `metric.type = "` + metric + `" AND resource.type = "gce_instance"`, Comparison: "COMPARISON_LT", ThresholdValue: v, Duration: "300s"}}
}

// Alert policies: server-assigned names, condition names kept across a patch, updateMask, user label
// filters, and the validation errors hypercompute can hit.
func TestAlertPolicies(t *testing.T) {
	e := start(t)
	parent := "projects/" + project
	p, err := e.mon.Projects.AlertPolicies.Create(parent, &monitoring.AlertPolicy{
		DisplayName: "hc: GoodputBelowTarget", Combiner: "OR", UserLabels: map[string]string{"hypercompute-cluster": "hc"},
		Conditions: []*monitoring.Condition{threshold("goodput", "workload.googleapis.com/hypercompute/goodput", 0.8)},
	}).Context(e.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Name, parent+"/alertPolicies/") || !p.Enabled || p.CreationRecord == nil ||
		!strings.HasPrefix(p.Conditions[0].Name, p.Name+"/conditions/") {
		t.Fatalf("created %+v: want a server-assigned name, enabled, a creation record, named conditions", p)
	}
	other, err := e.mon.Projects.AlertPolicies.Create(parent, &monitoring.AlertPolicy{
		DisplayName: "other", Conditions: []*monitoring.Condition{{DisplayName: "absent", ConditionAbsent: &monitoring.MetricAbsence{
			Filter: `metric.type = "custom.googleapis.com/x"`, Duration: "600s"}}}}).Context(e.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.mon.Projects.AlertPolicies.List(parent).Filter(`user_labels."hypercompute-cluster" = "hc"`).Context(e.ctx).Do()
	if err != nil || len(res.AlertPolicies) != 1 || res.AlertPolicies[0].Name != p.Name {
		t.Fatalf("list by user label: %+v %v", res, err)
	}

	p.Conditions[0].ConditionThreshold.ThresholdValue = 0.9
	p.Conditions = append(p.Conditions, &monitoring.Condition{DisplayName: "promql",
		ConditionPrometheusQueryLanguage: &monitoring.PrometheusQueryLanguageCondition{Query: "hypercompute_goodput < 0.9", Duration: "60s"}})
	up, err := e.mon.Projects.AlertPolicies.Patch(p.Name, p).UpdateMask("conditions").Context(e.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if up.Conditions[0].Name != p.Conditions[0].Name || up.Conditions[0].ConditionThreshold.ThresholdValue != 0.9 || up.Conditions[1].Name == "" {
		t.Errorf("patched conditions %+v: want the first kept by name with the new threshold, the second named", up.Conditions)
	}

	bad := []struct {
		name string
		p    *monitoring.AlertPolicy
		want string
	}{
		{"no conditions", &monitoring.AlertPolicy{DisplayName: "x"}, "At least one condition must be specified"},
		{"two conditions without combiner", &monitoring.AlertPolicy{DisplayName: "x", Conditions: []*monitoring.Condition{threshold("a", "custom.googleapis.com/a", 1), threshold("b", "custom.googleapis.com/b", 1)}}, "A combiner"},
		{"bad comparison", &monitoring.AlertPolicy{DisplayName: "x", Conditions: []*monitoring.Condition{{DisplayName: "c", ConditionThreshold: &monitoring.MetricThreshold{Filter: `metric.type = "custom.googleapis.com/a"`, Comparison: "LESS", Duration: "60s"}}}}, "comparison had an invalid value"},
		{"bad duration", &monitoring.AlertPolicy{DisplayName: "x", Conditions: []*monitoring.Condition{{DisplayName: "c", ConditionAbsent: &monitoring.MetricAbsence{Filter: `metric.type = "custom.googleapis.com/a"`, Duration: "5m"}}}}, "Illegal duration format"},
		{"short alignment", &monitoring.AlertPolicy{DisplayName: "x", Conditions: []*monitoring.Condition{{DisplayName: "c", ConditionThreshold: &monitoring.MetricThreshold{Filter: `metric.type = "custom.googleapis.com/a"`, Comparison: "COMPARISON_GT", Duration: "0s",
			Aggregations: []*monitoring.Aggregation{{AlignmentPeriod: "30s", PerSeriesAligner: "ALIGN_MAX"}}}}}}, "The alignment period must be at least 60 seconds"},
		{"uppercase label", &monitoring.AlertPolicy{DisplayName: "x", UserLabels: map[string]string{"Team": "a"}, Conditions: []*monitoring.Condition{threshold("a", "custom.googleapis.com/a", 1)}}, "label key 'Team'"},
	}
	for _, tc := range bad {
		_, err := e.mon.Projects.AlertPolicies.Create(parent, tc.p).Context(e.ctx).Do()
		if err == nil {
			t.Errorf("%s: created", tc.name)
			continue
		}
		apiErr(t, err, 400, tc.want)
	}
	for _, name := range []string{p.Name, other.Name} {
		if _, err := e.mon.Projects.AlertPolicies.Delete(name).Context(e.ctx).Do(); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.mon.Projects.AlertPolicies.Get(p.Name).Context(e.ctx).Do()
	apiErr(t, err, 404, p.Name)
}

// Dashboards: named creates, 409 on a taken name, etag concurrency on patch, mosaic validation.
func TestDashboards(t *testing.T) {
	e := start(t)
	parent := "projects/" + project
	tile := func(x int64) *dashboards.Tile {
		return &dashboards.Tile{XPos: x, Width: 6, Height: 4, Widget: &dashboards.Widget{Title: "goodput", XyChart: &dashboards.XyChart{
			DataSets: []*dashboards.DataSet{{TimeSeriesQuery: &dashboards.TimeSeriesQuery{TimeSeriesFilter: &dashboards.TimeSeriesFilter{
				Filter: `metric.type = "workload.googleapis.com/hypercompute/goodput"`}}}}}}}
	}
	want := &dashboards.Dashboard{Name: parent + "/dashboards/hc-us-central1-a", DisplayName: "hc", Labels: map[string]string{"hypercompute-cluster": "hc"},
		MosaicLayout: &dashboards.MosaicLayout{Columns: 12, Tiles: []*dashboards.Tile{tile(0), tile(6)}}}
	d, err := e.dash.Projects.Dashboards.Create(parent, want).Context(e.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != want.Name || d.Etag == "" {
		t.Fatalf("created %s etag %q, want the requested name and an etag", d.Name, d.Etag)
	}
	_, err = e.dash.Projects.Dashboards.Create(parent, want).Context(e.ctx).Do()
	apiErr(t, err, 409, "already exists")

	d.DisplayName = "hc (renamed)"
	d2, err := e.dash.Projects.Dashboards.Patch(d.Name, d).Context(e.ctx).Do()
	if err != nil || d2.Etag == d.Etag || d2.DisplayName != "hc (renamed)" {
		t.Fatalf("patch: %+v %v, want the new name and a new etag", d2, err)
	}
	_, err = e.dash.Projects.Dashboards.Patch(d.Name, d).Context(e.ctx).Do() // d holds the old etag
	apiErr(t, err, 409, "does not match the current etag")
	d.Etag = ""
	_, err = e.dash.Projects.Dashboards.Patch(d.Name, d).Context(e.ctx).Do()
	apiErr(t, err, 400, "Update Dashboard should specify a non empty etag.")

	wide := &dashboards.Dashboard{DisplayName: "wide", MosaicLayout: &dashboards.MosaicLayout{Columns: 12, Tiles: []*dashboards.Tile{tile(8)}}}
	_, err = e.dash.Projects.Dashboards.Create(parent, wide).Context(e.ctx).Do()
	apiErr(t, err, 400, "fit in 12 columns")

	res, err := e.dash.Projects.Dashboards.List(parent).Context(e.ctx).Do()
	if err != nil || len(res.Dashboards) != 1 {
		t.Fatalf("list: %+v %v", res, err)
	}
	if _, err := e.dash.Projects.Dashboards.Delete(d.Name).Context(e.ctx).Do(); err != nil {
		t.Fatal(err)
	}
	_, err = e.dash.Projects.Dashboards.Get(d.Name).Context(e.ctx).Do()
	apiErr(t, err, 404, "")
}

// The error body is the Google API's (code, message, status, details with the write summary), and the
// admin listing shows every series.
func TestHTTPErrorShapes(t *testing.T) {
	e := start(t)
	body := `{"timeSeries":[{"metric":{"type":"custom.googleapis.com/a"},"resource":{"type":"gce_instance","labels":{"project_id":"p","zone":"z"}},` +
		`"points":[{"interval":{"endTime":"2026-01-01T00:00:00Z"},"value":{"doubleValue":1}}]}]}`
	res, err := http.Post(e.URL+"/monitoring/v3/projects/"+project+"/timeSeries", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got struct {
		Error struct {
			Code    int
			Status  string
			Message string
			Details []map[string]any
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil || res.StatusCode != 400 || got.Error.Status != "INVALID_ARGUMENT" ||
		len(got.Error.Details) != 1 || got.Error.Details[0]["@type"] != "type.googleapis.com/google.monitoring.v3.CreateTimeSeriesSummary" {
		t.Fatalf("answer %d %s: want 400 INVALID_ARGUMENT with a CreateTimeSeriesSummary", res.StatusCode, raw)
	}
	if err := e.write(gauge("custom.googleapis.com/b", nil, "9", time.Now(), 2)); err != nil {
		t.Fatal(err)
	}
	res, err = http.Get(e.URL + "/emulator/v1/monitoring/timeSeries?prefix=custom.googleapis.com/")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var all monitoring.ListTimeSeriesResponse
	if err := json.Unmarshal(raw, &all); err != nil || len(all.TimeSeries) != 1 || all.TimeSeries[0].Metric.Type != "custom.googleapis.com/b" {
		t.Fatalf("admin listing %s", raw)
	}
}
