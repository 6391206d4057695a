package cloudmon

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// FromGatherer reads a Prometheus registry (the agent's /metrics) as a Source: gauges and untyped
// series as they are, counters as cumulative series; histograms and summaries are left out (no key
// series is one). A Writer's Filter picks the key series from everything the registry holds.
func FromGatherer(g prometheus.Gatherer) Source {
	return SourceFunc(func() ([]Sample, error) {
		families, err := g.Gather()
		var out []Sample
		for _, f := range families {
			for _, m := range f.GetMetric() {
				s := Sample{Name: f.GetName(), Labels: map[string]string{}}
				for _, l := range m.GetLabel() {
					s.Labels[l.GetName()] = l.GetValue()
				}
				switch f.GetType() {
				case dto.MetricType_GAUGE:
					s.Value = m.GetGauge().GetValue()
				case dto.MetricType_UNTYPED:
					s.Value = m.GetUntyped().GetValue()
				case dto.MetricType_COUNTER:
					s.Value, s.Cumulative = m.GetCounter().GetValue(), true
					if ts := m.GetCounter().GetCreatedTimestamp(); ts != nil {
						s.Start = ts.AsTime()
					}
				default:
					continue
				}
				out = append(out, s)
			}
		}
		// Gather reports a family that failed and still returns the others: write what there is.
		return out, err
	})
}
