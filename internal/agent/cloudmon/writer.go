package cloudmon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/api/googleapi"
	monitoring "google.golang.org/api/monitoring/v3"
)

// MaxBatch is timeSeries.create's limit of series per call.
const MaxBatch = 200

// maxLabels is Cloud Monitoring's limit of labels per user-defined metric.
const maxLabels = 10

// Instance is the monitored resource every series of a VM is written on: gce_instance.
type Instance struct {
	Project    string
	Zone       string
	InstanceID string // the VM's numeric id
}

// Writer writes its sources' samples to Cloud Monitoring.
type Writer struct {
	API      *monitoring.Service
	Instance Instance
	Sources  []Source
	// Filter passes only these series names (KeySeries); nil passes all.
	Filter map[string]bool
	// Labels are added to every series (the agent's: cluster, so one project holds several clusters'
	// series apart); a sample's own label of the same key wins.
	Labels map[string]string
	Log    *slog.Logger
	// Now replaces time.Now (tests).
	Now func() time.Time

	startOnce sync.Once
	start     time.Time
	mu        sync.Mutex
	last      time.Time

	written, dropped, failedCalls atomic.Int64
}

// Stats are what a Writer did so far.
type Stats struct {
	Written     int64 // points Cloud Monitoring accepted
	Dropped     int64 // points refused or lost with a failed call
	FailedCalls int64
}

// Stats returns the counters.
func (w *Writer) Stats() Stats {
	return Stats{Written: w.written.Load(), Dropped: w.dropped.Load(), FailedCalls: w.failedCalls.Load()}
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Writer) logger() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}

// Run writes every interval until ctx ends. Each write has the interval as its deadline, so a slow API
// never piles writes up; errors are logged and counted.
func (w *Writer) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		wctx, cancel := context.WithTimeout(ctx, interval)
		if err := w.Write(wctx); err != nil && ctx.Err() == nil {
			w.logger().Warn("cloud monitoring: write", "error", err.Error(), "dropped_total", w.dropped.Load())
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Write reads the sources once and writes their samples, at most MaxBatch series per call. Every batch
// is tried; the error joins the failures (the samples of a failed batch are dropped).
func (w *Writer) Write(ctx context.Context) error {
	w.startOnce.Do(func() { w.start = w.now().Add(-time.Millisecond) })
	var errs []error
	var samples []Sample
	for _, src := range w.Sources {
		got, err := src.Samples()
		if err != nil {
			errs = append(errs, fmt.Errorf("reading a source: %w", err))
		}
		samples = append(samples, got...)
	}
	series := w.series(samples, w.endTime())
	for i := 0; i < len(series); i += MaxBatch {
		batch := series[i:min(i+MaxBatch, len(series))]
		if err := w.create(ctx, batch); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// endTime is now, but always after the previous write's: a series' points must be written in order.
func (w *Writer) endTime() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.now().UTC()
	if !t.After(w.last) {
		t = w.last.Add(time.Millisecond)
	}
	w.last = t
	return t
}

func (w *Writer) create(ctx context.Context, batch []*monitoring.TimeSeries) error {
	_, err := w.API.Projects.TimeSeries.Create("projects/"+w.Instance.Project, &monitoring.CreateTimeSeriesRequest{TimeSeries: batch}).Context(ctx).Do()
	if err == nil {
		w.written.Add(int64(len(batch)))
		return nil
	}
	w.failedCalls.Add(1)
	// A partly refused request wrote the others; its summary says how many.
	ok := partialSuccess(err)
	w.written.Add(int64(ok))
	w.dropped.Add(int64(len(batch) - ok))
	return fmt.Errorf("timeSeries.create of %d series: %w", len(batch), err)
}

// partialSuccess reads successPointCount from a CreateTimeSeriesSummary error detail.
func partialSuccess(err error) int {
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return 0
	}
	for _, d := range ge.Details {
		m, _ := d.(map[string]any)
		if m == nil || !strings.HasSuffix(fmt.Sprint(m["@type"]), "CreateTimeSeriesSummary") {
			continue
		}
		if n, ok := m["successPointCount"].(float64); ok {
			return int(n)
		}
	}
	return 0
}

// series turns samples into one-point time series: filtered, NaN and infinities left out (Cloud
// Monitoring refuses them), one series per metric type and labels (the last sample wins).
func (w *Writer) series(samples []Sample, end time.Time) []*monitoring.TimeSeries {
	res := &monitoring.MonitoredResource{Type: "gce_instance", Labels: map[string]string{
		"project_id": w.Instance.Project, "zone": w.Instance.Zone, "instance_id": w.Instance.InstanceID}}
	byKey := map[string]*monitoring.TimeSeries{}
	var order []string
	for _, s := range samples {
		if (w.Filter != nil && !w.Filter[s.Name]) || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		all := maps.Clone(w.Labels)
		if all == nil {
			all = map[string]string{}
		}
		maps.Copy(all, s.Labels)
		labels := metricLabels(all)
		typ := MetricType(s.Name)
		key := typ + "\x00" + fmt.Sprint(labelPairs(labels))
		ts := &monitoring.TimeSeries{
			Metric:     &monitoring.Metric{Type: typ, Labels: labels},
			Resource:   res,
			MetricKind: "GAUGE",
			ValueType:  "DOUBLE",
			Points: []*monitoring.Point{{
				Interval: &monitoring.TimeInterval{EndTime: end.Format(time.RFC3339Nano)},
				Value:    &monitoring.TypedValue{DoubleValue: googleapi.Float64(s.Value)},
			}},
		}
		if s.Cumulative {
			start := s.Start
			if start.IsZero() || !start.Before(end) {
				start = w.start
			}
			ts.MetricKind = "CUMULATIVE"
			ts.Points[0].Interval.StartTime = start.UTC().Format(time.RFC3339Nano)
		}
		if _, seen := byKey[key]; !seen {
			order = append(order, key)
		}
		byKey[key] = ts
	}
	out := make([]*monitoring.TimeSeries, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k])
	}
	return out
}

// metricLabels are a sample's labels as Cloud Monitoring takes them: keys lower case with only letters,
// digits and underscores, at most maxLabels (the first by key).
func metricLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if len(out) == maxLabels {
			break
		}
		key := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
				return r
			case r >= 'A' && r <= 'Z':
				return r + ('a' - 'A')
			}
			return '_'
		}, k)
		out[key] = in[k]
	}
	return out
}

func labelPairs(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
