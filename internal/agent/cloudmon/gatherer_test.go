package cloudmon_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
)

// A Prometheus registry reads as samples: gauges with their labels, counters as cumulative series,
// histograms left out.
func TestFromGatherer(t *testing.T) {
	reg := prometheus.NewRegistry()
	drained := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: cloudmon.HealthNodeDrained}, []string{"node", "partition", "check"})
	repairs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: cloudmon.HealthRepairsTotal}, []string{"partition", "action", "outcome"})
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "hypercompute_health_check_duration_seconds"})
	reg.MustRegister(drained, repairs, hist)
	drained.WithLabelValues("hc-a3-1", "a3", "gpu").Set(1)
	repairs.WithLabelValues("a3", "reboot", "failed").Add(2)
	hist.Observe(3)
	got, err := cloudmon.FromGatherer(reg).Samples()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("samples %+v, want the gauge and the counter", got)
	}
	for _, s := range got {
		switch s.Name {
		case cloudmon.HealthNodeDrained:
			if s.Value != 1 || s.Cumulative || s.Labels["node"] != "hc-a3-1" || s.Labels["check"] != "gpu" {
				t.Errorf("gauge %+v", s)
			}
		case cloudmon.HealthRepairsTotal:
			if s.Value != 2 || !s.Cumulative || s.Labels["outcome"] != "failed" {
				t.Errorf("counter %+v", s)
			}
		default:
			t.Errorf("unexpected %+v", s)
		}
	}
}
