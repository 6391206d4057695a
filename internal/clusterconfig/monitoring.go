package clusterconfig

import (
	"fmt"
	"time"
)

// Monitoring is the cluster's observability: every VM's agent serves Prometheus metrics on
// MetricsPort; with Prometheus on, the controller runs Debian's prometheus scraping every VM of
// the cluster and evaluating the project's alert rules; with CloudMonitoring on, agents also write
// the key series to Cloud Monitoring with the VM's own credentials and the provider keeps a
// dashboard and alert policies for the same rules. Nil: none of it.
type Monitoring struct {
	// MetricsPort is where each VM's agent serves /metrics (0: DefaultMetricsPort).
	MetricsPort int `json:"metrics_port,omitempty"`
	// Prometheus runs prometheus on the controller on PrometheusPort (0: DefaultPrometheusPort).
	Prometheus     bool `json:"prometheus"`
	PrometheusPort int  `json:"prometheus_port,omitempty"`
	// ScrapeInterval is Prometheus' scrape and rule evaluation interval, in seconds (0: default).
	ScrapeInterval int `json:"scrape_interval,omitempty"`
	// RetentionDays is how long Prometheus keeps samples (0: default).
	RetentionDays int `json:"retention_days,omitempty"`
	// CloudMonitoring writes time series to Cloud Monitoring and keeps a dashboard and alert policies.
	CloudMonitoring bool `json:"cloud_monitoring"`
	// GoodputTarget is the goodput below which the goodput alert fires, in (0, 1] (0: default).
	GoodputTarget float64 `json:"goodput_target,omitempty"`
	// NoProgressIntervals is how many scrape intervals without a training step make a job
	// "not progressing" (0: default).
	NoProgressIntervals int `json:"no_progress_intervals,omitempty"`
	// NotificationChannels are Cloud Monitoring channel names the alert policies notify.
	NotificationChannels []string `json:"notification_channels,omitempty"`
}

// SharedMonitoring is the monitoring block as the controller publishes it beside slurm.conf on
// /home, for login and compute VMs, which never read the cluster's config: their agents serve
// metrics on its port while it exists.
const SharedMonitoring = "monitoring.json"

// Monitoring defaults.
const (
	// DefaultMetricsPort is next to the ports the common exporters take (node 9100, dcgm 9400).
	DefaultMetricsPort         = 9410
	DefaultPrometheusPort      = 9090
	DefaultScrapeInterval      = 30
	DefaultRetentionDays       = 15
	DefaultGoodputTarget       = 0.8
	DefaultNoProgressIntervals = 10
	MinScrapeInterval          = 5
	MaxScrapeInterval          = 600
	MaxRetentionDaysPrometheus = 3650
	MaxNotificationChannels    = 16
)

// Port is the metrics port every VM serves.
func (m *Monitoring) Port() int {
	if m == nil || m.MetricsPort == 0 {
		return DefaultMetricsPort
	}
	return m.MetricsPort
}

// PrometheusListenPort is where the controller's prometheus listens.
func (m *Monitoring) PrometheusListenPort() int {
	if m == nil || m.PrometheusPort == 0 {
		return DefaultPrometheusPort
	}
	return m.PrometheusPort
}

// Interval is the scrape and evaluation interval.
func (m *Monitoring) Interval() time.Duration {
	if m == nil || m.ScrapeInterval == 0 {
		return DefaultScrapeInterval * time.Second
	}
	return time.Duration(m.ScrapeInterval) * time.Second
}

// Retention is how many days Prometheus keeps.
func (m *Monitoring) Retention() int {
	if m == nil || m.RetentionDays == 0 {
		return DefaultRetentionDays
	}
	return m.RetentionDays
}

// Target is the goodput alert's threshold.
func (m *Monitoring) Target() float64 {
	if m == nil || m.GoodputTarget == 0 {
		return DefaultGoodputTarget
	}
	return m.GoodputTarget
}

// StallIntervals is how many intervals without progress make a job stalled.
func (m *Monitoring) StallIntervals() int {
	if m == nil || m.NoProgressIntervals == 0 {
		return DefaultNoProgressIntervals
	}
	return m.NoProgressIntervals
}

// ValidateMonitoring checks the block's values; the error names the field.
func ValidateMonitoring(m *Monitoring) error {
	if m == nil {
		return nil
	}
	port := func(name string, p int) error {
		if p != 0 && (p < 1024 || p > 65535) {
			return fmt.Errorf("%s: %d is not a port in 1024-65535", name, p)
		}
		return nil
	}
	if err := port("metrics_port", m.MetricsPort); err != nil {
		return err
	}
	if err := port("prometheus_port", m.PrometheusPort); err != nil {
		return err
	}
	if m.MetricsPort != 0 && m.MetricsPort == m.PrometheusListenPort() {
		return fmt.Errorf("metrics_port: %d is also prometheus_port", m.MetricsPort)
	}
	for _, p := range []int{DefaultSlurmctldPort, DefaultSlurmdPort, DefaultSlurmdbdPort, SlurmrestdPort} {
		if m.MetricsPort == p || m.PrometheusPort == p {
			return fmt.Errorf("metrics_port/prometheus_port: %d is a Slurm daemon's port", p)
		}
	}
	if s := m.ScrapeInterval; s != 0 && (s < MinScrapeInterval || s > MaxScrapeInterval) {
		return fmt.Errorf("scrape_interval: %ds is not between %ds and %ds", s, MinScrapeInterval, MaxScrapeInterval)
	}
	if d := m.RetentionDays; d < 0 || d > MaxRetentionDaysPrometheus {
		return fmt.Errorf("retention_days: %d is not between 1 and %d", d, MaxRetentionDaysPrometheus)
	}
	if t := m.GoodputTarget; t < 0 || t > 1 {
		return fmt.Errorf("goodput_target: %g is not in (0, 1]", t)
	}
	if n := m.NoProgressIntervals; n < 0 || n > 1000 {
		return fmt.Errorf("no_progress_intervals: %d is not between 1 and 1000", n)
	}
	if len(m.NotificationChannels) > MaxNotificationChannels {
		return fmt.Errorf("notification_channels: %d channels, at most %d", len(m.NotificationChannels), MaxNotificationChannels)
	}
	return nil
}
