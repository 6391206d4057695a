// Package cloudmon writes a VM's key series to Cloud Monitoring (timeSeries.create) with the VM's own
// credentials: every interval the Writer reads its Sources (current values: a name, labels, a value),
// turns them into time series of metric types under workload.googleapis.com/hypercompute/ on the
// monitored resource gce_instance (the VM's project, zone and instance id), and writes them in batches of
// at most 200. A failed write is dropped and counted, never retried into the next interval and never
// waited on by anything else the agent does.
//
// Names follow the agent's Prometheus series one to one (MetricType): hypercompute_job_step is
// workload.googleapis.com/hypercompute/job_step, DCGM_FI_DEV_XID_ERRORS is
// workload.googleapis.com/hypercompute/dcgm_fi_dev_xid_errors; Cloud Monitoring's PromQL reads them back
// as workload_googleapis_com:hypercompute_job_step, which is what the provider's PromQL alert conditions
// query (PromQLName).
package cloudmon

import (
	"strings"
	"time"
)

// ClusterLabel is the metric label every series of a cluster carries (its name), which the provider's
// dashboard and alert policies select by.
const ClusterLabel = "cluster"

// Prefix is where every series the agent writes lives.
const Prefix = "workload.googleapis.com/hypercompute/"

// Sample is one current value of a series.
type Sample struct {
	// Name is the series' Prometheus name (hypercompute_job_step, DCGM_FI_DEV_XID_ERRORS).
	Name   string
	Labels map[string]string
	Value  float64
	// Cumulative marks a counter: written as a CUMULATIVE series whose start is Start (the writer's
	// start when zero), so Cloud Monitoring can align its deltas.
	Cumulative bool
	Start      time.Time
}

// Source gives the current values of some series; the Writer calls it once per interval.
type Source interface {
	Samples() ([]Sample, error)
}

// SourceFunc adapts a function to Source.
type SourceFunc func() ([]Sample, error)

// Samples calls f.
func (f SourceFunc) Samples() ([]Sample, error) { return f() }

// MetricType is the Cloud Monitoring metric type of a Prometheus series name.
func MetricType(name string) string {
	return Prefix + strings.TrimPrefix(strings.ToLower(name), "hypercompute_")
}

// PromQLName is how Cloud Monitoring's PromQL names the series MetricType(name) writes.
func PromQLName(name string) string {
	t := MetricType(name)
	domain, path, _ := strings.Cut(t, "/")
	r := strings.NewReplacer(".", "_", "/", "_")
	return r.Replace(domain) + ":" + r.Replace(path)
}

// The key series, by their Prometheus names: what the agent writes and the provider's dashboard and
// alert policies read.
const (
	HealthCheckResult      = "hypercompute_health_check_result"
	HealthNodeDrained      = "hypercompute_health_node_drained"
	HealthDrainsTotal      = "hypercompute_health_drains_total"
	HealthRepairsTotal     = "hypercompute_health_repairs_total"
	HealthEscalationsTotal = "hypercompute_health_repair_escalations_total"
	GPUUtil                = "DCGM_FI_DEV_GPU_UTIL"
	GPUECCDBE              = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
	GPUXID                 = "DCGM_FI_DEV_XID_ERRORS"
	JobStep                = "hypercompute_job_step"
	JobLoss                = "hypercompute_job_loss"
	JobTokensPerSecond     = "hypercompute_job_tokens_per_second"
	JobMFU                 = "hypercompute_job_mfu"
	JobRunning             = "hypercompute_job_running"
	JobRunStart            = "hypercompute_job_run_start_timestamp_seconds"
	JobCheckpointAge       = "hypercompute_job_checkpoint_age_seconds"
	JobCheckpointInterval  = "hypercompute_job_checkpoint_interval_seconds"
	GoodputRatio           = "hypercompute_goodput_ratio"
)

// KeySeries are the series a Writer passes on from a source that offers more (a whole Prometheus
// registry: Go runtime, Slurm states); nil Filter on a Writer passes everything.
var KeySeries = map[string]bool{
	HealthCheckResult: true, HealthNodeDrained: true, HealthDrainsTotal: true, HealthRepairsTotal: true,
	HealthEscalationsTotal: true, GPUUtil: true, GPUECCDBE: true, GPUXID: true, JobStep: true, JobLoss: true,
	JobTokensPerSecond: true, JobMFU: true, JobRunning: true, JobRunStart: true, JobCheckpointAge: true,
	JobCheckpointInterval: true, GoodputRatio: true,
}
