// Package metrics is the agent's Prometheus registry: what every VM's agent serves on the cluster's
// metrics port (health checks, GPUs under dcgm-exporter's names), what the controller adds (Slurm's
// node and queue states under prometheus-slurm-exporter's names, recipe jobs, repairs, goodput).
// The agent sets values as it learns them and refreshes the sampled ones (GPU tools, files other
// processes write) when the registry is gathered, so a scrape reads the node as it is now and an
// idle node runs no tool between scrapes. Gatherer is the one way to read the current values, for
// the HTTP handler and for anything else that exports them (Cloud Monitoring).
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// Registry holds every series the agent serves.
type Registry struct {
	reg *prometheus.Registry

	health healthMetrics
	gpu    gpuMetrics
	slurm  slurmMetrics
	jobs   jobMetrics

	mu sync.Mutex
	// refresh samples what is read on demand; refreshed is when it last ran, so scrapes close
	// together (Prometheus plus Cloud Monitoring) run the tools once.
	refresh   []func()
	refreshed time.Time
}

// minRefresh bounds how often a gather samples the GPU tools and files again.
const minRefresh = 2 * time.Second

// New makes a registry with every family registered (the agent's own process and Go runtime
// figures too: its CPU and memory are what metrics cost a node).
func New() *Registry {
	r := &Registry{reg: prometheus.NewRegistry()}
	r.reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	r.health = newHealthMetrics(r.reg)
	r.gpu = newGPUMetrics(r.reg)
	r.slurm = newSlurmMetrics(r.reg)
	r.jobs = newJobMetrics(r.reg)
	return r
}

// OnGather adds a sampler that runs (at most every two seconds) before the values are read.
func (r *Registry) OnGather(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh = append(r.refresh, f)
}

// Refresh runs the samplers now, whenever they last ran (a writer on its own schedule).
func (r *Registry) Refresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.refresh {
		f()
	}
	r.refreshed = time.Now()
}

// Gather samples, then returns every family: the prometheus.Gatherer others read the values by.
func (r *Registry) Gather() ([]*dto.MetricFamily, error) {
	r.mu.Lock()
	if time.Since(r.refreshed) >= minRefresh {
		for _, f := range r.refresh {
			f()
		}
		r.refreshed = time.Now()
	}
	r.mu.Unlock()
	return r.reg.Gather()
}

// Handler serves the registry in Prometheus' exposition formats.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

var _ prometheus.Gatherer = (*Registry)(nil)
