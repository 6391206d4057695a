package agent

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// controllerSamplers add what the controller serves beyond any VM's metrics: Slurm's nodes and
// queue (one sinfo, one squeue per gather), the nodes drained by health checks and the repairs
// running, and every recipe job's progress from the files the job poller already reads.
func (h *host) controllerSamplers(reg *metrics.Registry, l cc.Layout) {
	c := &controller{host: h}
	reg.OnGather(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cli := slurmCLI(l)
		nodes, err := cli.NodesByPartition(ctx)
		if err != nil {
			h.log.Warn("metrics: sinfo", "error", err.Error())
			return
		}
		jobs, err := cli.Queue(ctx)
		if err != nil {
			h.log.Warn("metrics: squeue", "error", err.Error())
			return
		}
		s, drained := slurmSnapshot(nodes, jobs)
		reg.SetSlurm(s)
		nodePart := map[string]string{}
		for _, n := range nodes {
			nodePart[n.Name] = n.Partition
		}
		repairing := map[string]int{}
		for _, r := range c.loadHealth().InProgress {
			repairing[nodePart[r.Node]]++
		}
		reg.SetHealthState(drained, repairing)
	})
	reg.OnGather(func() {
		reg.SetJobs(jobMetrics(c.loadJobRecords(filepath.Join(h.stateDir, "jobs")), time.Now()))
	})
}

// slurmSnapshot counts nodes and jobs per prometheus-slurm-exporter state group, in total and per
// partition, and lists the nodes a health check drained.
func slurmSnapshot(nodes []slurm.PartitionNode, jobs []slurm.QueuedJob) (metrics.Slurm, []metrics.DrainedNode) {
	s := metrics.Slurm{Nodes: map[string]int{}, Queue: map[string]int{}, PartitionNodes: map[string]map[string]int{}, PartitionJobs: map[string]map[string]int{}}
	seen := map[string]bool{}
	var drained []metrics.DrainedNode
	for _, n := range nodes {
		g := metrics.NodeStateGroup(n.State)
		if g == "" {
			continue
		}
		if s.PartitionNodes[n.Partition] == nil {
			s.PartitionNodes[n.Partition] = map[string]int{}
		}
		s.PartitionNodes[n.Partition][g]++
		if seen[n.Name] {
			continue
		}
		seen[n.Name] = true
		s.Nodes[g]++
		if check, ok := cc.ParseHealthDrainReason(n.Reason); ok && g == "drain" {
			drained = append(drained, metrics.DrainedNode{Node: n.Name, Partition: n.Partition, Check: check})
		}
	}
	for _, j := range jobs {
		g := metrics.QueueStateGroup(j.State)
		if g == "" {
			continue
		}
		s.Queue[g]++
		if s.PartitionJobs[j.Partition] == nil {
			s.PartitionJobs[j.Partition] = map[string]int{}
		}
		s.PartitionJobs[j.Partition][g]++
	}
	return s, drained
}

// jobMetrics turns the recipe jobs' records (their last report and Progress) into series.
func jobMetrics(recs map[string]*jobRecord, now time.Time) []metrics.Job {
	var out []metrics.Job
	for _, rec := range recs {
		if rec.Report == nil || rec.JobID == 0 {
			continue
		}
		j := metrics.Job{Name: rec.Name, Partition: rec.Partition, State: rec.Report.State, SlurmJobID: strconv.Itoa(rec.JobID),
			StepSeconds: -1, TokensPerSecond: -1, CheckpointAgeSeconds: -1, CheckpointCostSeconds: -1, CheckpointIntervalSeconds: -1}
		raw, ok := readProgress(rec.RunDir)
		if !ok {
			raw = rec.Report.Progress
		}
		var p recipes.Progress
		if len(raw) > 0 && json.Unmarshal(raw, &p) == nil {
			j.Step, j.MaxSteps, j.Loss, j.LostSeconds, j.MFU, j.Restarts = float64(p.Step), float64(p.MaxSteps), p.LastLoss, p.LostSeconds, p.MFU, float64(p.Restarts)
			j.CheckpointCostSeconds, j.CheckpointIntervalSeconds = p.CheckpointCostSecond, p.IntervalSeconds
			since := p.LastCheckpointTime
			if since == "" {
				since = p.StartedAt
			}
			if t, err := time.Parse(time.RFC3339, since); err == nil {
				j.CheckpointAgeSeconds = max(0, now.Sub(t).Seconds())
			}
			if t, err := time.Parse(time.RFC3339, p.StartedAt); err == nil && j.State == "RUNNING" {
				j.RunStarted = float64(t.Unix())
			}
			if p.Step > 0 && p.TrainSeconds > 0 {
				j.StepSeconds = p.TrainSeconds / float64(p.Step)
			}
		}
		dir := rec.MetricsDir
		if dir == "" {
			dir = rec.RunDir
		}
		if last, ok := lastMetricsLine(filepath.Join(dir, "metrics.jsonl")); ok {
			if last.StepTime > 0 {
				j.StepSeconds = last.StepTime
			}
			if last.TokensPerS > 0 {
				j.TokensPerSecond = last.TokensPerS
			}
		}
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// trainerMetrics is one line of a trainer's metrics.jsonl (the CPU recipe writes one every
// log_every steps).
type trainerMetrics struct {
	Step       int     `json:"step"`
	StepTime   float64 `json:"step_time"`
	TokensPerS float64 `json:"tokens_per_s"`
}

// lastMetricsLine reads the newest complete line of a metrics.jsonl from its tail.
func lastMetricsLine(p string) (trainerMetrics, bool) {
	var m trainerMetrics
	f, err := os.Open(p)
	if err != nil {
		return m, false
	}
	defer f.Close()
	const tail = 4096
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		f.Seek(st.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if json.Unmarshal([]byte(lines[i]), &m) == nil && m.Step > 0 {
			return m, true
		}
	}
	return m, false
}
