package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// cloudMonState is the Cloud Monitoring writer a role runs (cloudmon.Writer): started when the
// cluster's monitoring block turns cloud_monitoring on, restarted when the interval changes, stopped
// when it is turned off.
type cloudMonState struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	interval time.Duration
}

// cloudMonitoring keeps the writer in line with m. It never blocks a pass: the writer starts in its own
// goroutine, which reads the VM's project, zone and id from the metadata server and builds the client
// with the VM's own credentials (the local cloud's API where HYPERCOMPUTE_EMULATOR_HOST says so).
func (h *host) cloudMonitoring(ctx context.Context, st *cloudMonState, cluster string, m *cc.Monitoring, sources ...cloudmon.Source) {
	on := m != nil && m.CloudMonitoring
	st.mu.Lock()
	defer st.mu.Unlock()
	if on && st.cancel != nil && st.interval == m.Interval() {
		return
	}
	if st.cancel != nil {
		st.cancel()
		st.cancel = nil
	}
	if !on {
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	st.cancel, st.interval = cancel, m.Interval()
	go func() {
		w, err := h.cloudWriter(wctx, sources)
		if err == nil {
			w.Labels = map[string]string{cloudmon.ClusterLabel: cluster}
		}
		if err != nil {
			h.log.Warn("cloud monitoring: not writing", "error", err.Error())
			return
		}
		h.log.Info("cloud monitoring: writing", "project", w.Instance.Project, "interval", st.interval.String())
		w.Run(wctx, m.Interval())
	}()
}

func (h *host) cloudWriter(ctx context.Context, sources []cloudmon.Source) (*cloudmon.Writer, error) {
	project, err := h.md.Project(ctx)
	if err != nil {
		return nil, err
	}
	zone, err := h.md.Zone(ctx)
	if err != nil {
		return nil, err
	}
	id, err := h.md.client.InstanceIDWithContext(ctx)
	if err != nil {
		return nil, err
	}
	clients, err := gcp.NewClients(ctx, gcp.Config{Project: project, Zone: zone,
		EmulatorHost: os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"), UserAgent: "hypercompute-agent"})
	if err != nil {
		return nil, err
	}
	return &cloudmon.Writer{API: clients.Monitoring, Instance: cloudmon.Instance{Project: project, Zone: zone, InstanceID: id},
		Sources: sources, Filter: cloudmon.KeySeries, Log: h.log}, nil
}

// jobSource gives the controller's recipe jobs as series, from the records the job poller keeps:
// running, step, loss, MFU, run start and checkpoint age and interval (label recipe_job).
func (c *controller) jobSource() cloudmon.Source {
	return cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) {
		return jobSamples(c.loadJobRecords(filepath.Join(c.stateDir, "jobs")), time.Now()), nil
	})
}

func jobSamples(recs map[string]*jobRecord, now time.Time) []cloudmon.Sample {
	var out []cloudmon.Sample
	for _, rec := range recs {
		if rec.Report == nil {
			continue
		}
		labels := map[string]string{"recipe_job": rec.Name}
		add := func(name string, v float64) {
			out = append(out, cloudmon.Sample{Name: name, Labels: labels, Value: v})
		}
		running := 0.0
		if rec.Report.State == "RUNNING" {
			running = 1
		}
		add(cloudmon.JobRunning, running)
		var p recipes.Progress
		if len(rec.Report.Progress) == 0 || json.Unmarshal(rec.Report.Progress, &p) != nil {
			continue
		}
		add(cloudmon.JobStep, float64(p.Step))
		add(cloudmon.JobLoss, p.LastLoss)
		if p.MFU > 0 {
			add(cloudmon.JobMFU, p.MFU)
		}
		if p.IntervalSeconds > 0 {
			add(cloudmon.JobCheckpointInterval, p.IntervalSeconds)
		}
		started, serr := time.Parse(time.RFC3339, p.StartedAt)
		if serr == nil {
			add(cloudmon.JobRunStart, float64(started.Unix()))
		}
		if t, err := time.Parse(time.RFC3339, p.LastCheckpointTime); err == nil {
			add(cloudmon.JobCheckpointAge, now.Sub(t).Seconds())
		} else if serr == nil {
			add(cloudmon.JobCheckpointAge, now.Sub(started).Seconds())
		}
	}
	return out
}
