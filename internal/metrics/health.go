package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// CheckResult is one health check's last run on this node.
type CheckResult struct {
	Check    string
	Passed   bool
	Seconds  float64
	Schedule string
	// Time is when it ran; a result is observed into the duration histogram once per Time.
	Time time.Time
}

type healthMetrics struct {
	result, lastRun *prometheus.GaugeVec
	duration        *prometheus.HistogramVec
	drains          *prometheus.CounterVec
	repairs         *prometheus.CounterVec
	escalations     *prometheus.CounterVec
	drained         *prometheus.GaugeVec
	repairing       *prometheus.GaugeVec
	seen            map[string]time.Time
}

func newHealthMetrics(reg prometheus.Registerer) healthMetrics {
	h := healthMetrics{
		result: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hypercompute_health_check_result",
			Help: "Last result of a health check on this node: 1 passed, 0 failed."}, []string{"check", "node"}),
		lastRun: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hypercompute_health_check_last_run_timestamp_seconds",
			Help: "When a health check last ran on this node (Unix time)."}, []string{"check", "node"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hypercompute_health_check_duration_seconds",
			Help:    "How long health checks take on this node.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900}}, []string{"check"}),
		drains: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hypercompute_health_drains_total",
			Help: "Nodes drained by a failed health check, as the controller saw them."}, []string{"partition", "check"}),
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hypercompute_health_repairs_total",
			Help: "Health repairs by action (reboot, replace, reimage) and outcome (started, ok, failed)."}, []string{"partition", "action", "outcome"}),
		escalations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hypercompute_health_repair_escalations_total",
			Help: "Repairs that took the next step of the policy's escalation ladder instead of the check's action."}, []string{"partition", "action"}),
		drained: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hypercompute_health_node_drained",
			Help: "1 for each node Slurm holds drained by a failed health check."}, []string{"node", "partition", "check"}),
		repairing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hypercompute_health_repairs_in_progress",
			Help: "Repairs running, per partition."}, []string{"partition"}),
		seen: map[string]time.Time{},
	}
	reg.MustRegister(h.result, h.lastRun, h.duration, h.drains, h.repairs, h.escalations, h.drained, h.repairing)
	return h
}

// SetHealthResults replaces this node's check results; each run (its Time) is counted in the
// duration histogram once, however often the same results are set again.
func (r *Registry) SetHealthResults(node string, results []CheckResult) {
	h := &r.health
	h.result.Reset()
	h.lastRun.Reset()
	for _, c := range results {
		v := 0.0
		if c.Passed {
			v = 1
		}
		h.result.WithLabelValues(c.Check, node).Set(v)
		h.lastRun.WithLabelValues(c.Check, node).Set(float64(c.Time.Unix()))
		if !h.seen[c.Check].Equal(c.Time) {
			h.seen[c.Check] = c.Time
			h.duration.WithLabelValues(c.Check).Observe(c.Seconds)
		}
	}
}

// HealthDrain counts a node the controller saw drained by a check.
func (r *Registry) HealthDrain(partition, check string) {
	r.health.drains.WithLabelValues(partition, check).Inc()
}

// Repair counts a repair's start or end (outcome started, ok or failed); escalated marks a start
// that took an escalation step.
func (r *Registry) Repair(partition, action, outcome string, escalated bool) {
	r.health.repairs.WithLabelValues(partition, action, outcome).Inc()
	if escalated {
		r.health.escalations.WithLabelValues(partition, action).Inc()
	}
}

// DrainedNode is a node Slurm holds drained by a health check.
type DrainedNode struct{ Node, Partition, Check string }

// SetHealthState replaces the drained nodes and the repairs running per partition.
func (r *Registry) SetHealthState(drained []DrainedNode, repairing map[string]int) {
	r.health.drained.Reset()
	for _, d := range drained {
		r.health.drained.WithLabelValues(d.Node, d.Partition, d.Check).Set(1)
	}
	r.health.repairing.Reset()
	for p, n := range repairing {
		r.health.repairing.WithLabelValues(p).Set(float64(n))
	}
}
