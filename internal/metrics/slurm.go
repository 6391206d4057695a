package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

func itoa(i int) string { return strconv.Itoa(i) }

// NodeStates are prometheus-slurm-exporter's node state groups (slurm_nodes_<state>).
var NodeStates = []string{"alloc", "comp", "down", "drain", "err", "fail", "idle", "maint", "mix", "resv"}

// QueueStates are its job state groups (slurm_queue_<state>).
var QueueStates = []string{"pending", "running", "suspended", "cancelled", "completing", "completed",
	"configuring", "failed", "timeout", "preempted", "node_fail"}

// Slurm is one look at the controller's slurmctld.
type Slurm struct {
	// Nodes counts nodes per state group (NodeStates); Queue jobs per state group (QueueStates).
	Nodes, Queue map[string]int
	// PartitionNodes counts each partition's nodes per state group; PartitionJobs its jobs per
	// state group.
	PartitionNodes, PartitionJobs map[string]map[string]int
}

type slurmMetrics struct {
	nodes, queue        map[string]prometheus.Gauge
	partNodes, partJobs *prometheus.GaugeVec
	partPending         *prometheus.GaugeVec
}

func newSlurmMetrics(reg prometheus.Registerer) slurmMetrics {
	m := slurmMetrics{nodes: map[string]prometheus.Gauge{}, queue: map[string]prometheus.Gauge{}}
	for _, s := range NodeStates {
		m.nodes[s] = prometheus.NewGauge(prometheus.GaugeOpts{Name: "slurm_nodes_" + s, Help: "Nodes in state " + s + " (sinfo)."})
		reg.MustRegister(m.nodes[s])
	}
	for _, s := range QueueStates {
		m.queue[s] = prometheus.NewGauge(prometheus.GaugeOpts{Name: "slurm_queue_" + s, Help: "Jobs in state " + s + " (squeue)."})
		reg.MustRegister(m.queue[s])
	}
	m.partNodes = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "slurm_partition_nodes",
		Help: "A partition's nodes per state group."}, []string{"partition", "state"})
	m.partJobs = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "slurm_partition_jobs",
		Help: "A partition's jobs per state group."}, []string{"partition", "state"})
	m.partPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "slurm_partition_jobs_pending",
		Help: "A partition's pending jobs."}, []string{"partition"})
	reg.MustRegister(m.partNodes, m.partJobs, m.partPending)
	return m
}

// SetSlurm replaces the Slurm series.
func (r *Registry) SetSlurm(s Slurm) {
	m := &r.slurm
	for st, g := range m.nodes {
		g.Set(float64(s.Nodes[st]))
	}
	for st, g := range m.queue {
		g.Set(float64(s.Queue[st]))
	}
	m.partNodes.Reset()
	m.partJobs.Reset()
	m.partPending.Reset()
	for p, by := range s.PartitionNodes {
		for st, n := range by {
			m.partNodes.WithLabelValues(p, st).Set(float64(n))
		}
	}
	for p, by := range s.PartitionJobs {
		for st, n := range by {
			m.partJobs.WithLabelValues(p, st).Set(float64(n))
		}
		m.partPending.WithLabelValues(p).Set(float64(by["pending"]))
	}
}

// NodeStateGroup maps sinfo's long state ("drained~", "mixed*", "allocated+") to the exporter's
// group, as prometheus-slurm-exporter matches it: drain before the rest, since a drained node
// also shows idle or allocated in the flags.
func NodeStateGroup(state string) string {
	base := state
	for len(base) > 0 && !isLetter(base[len(base)-1]) {
		base = base[:len(base)-1]
	}
	switch base {
	case "drained", "draining", "drain":
		return "drain"
	case "allocated", "alloc":
		return "alloc"
	case "completing", "comp":
		return "comp"
	case "down":
		return "down"
	case "error", "err":
		return "err"
	case "fail", "failing":
		return "fail"
	case "idle":
		return "idle"
	case "maint":
		return "maint"
	case "mixed", "mix":
		return "mix"
	case "reserved", "resv":
		return "resv"
	}
	return ""
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// QueueStateGroup maps a job state (squeue's %T) to the exporter's group; "" for others.
func QueueStateGroup(state string) string {
	switch state {
	case "PENDING", "RUNNING", "SUSPENDED", "CANCELLED", "COMPLETING", "COMPLETED", "CONFIGURING",
		"FAILED", "TIMEOUT", "PREEMPTED", "NODE_FAIL":
		return lower(state)
	}
	return ""
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
