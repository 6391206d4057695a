package agent

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// cloudMonState is the agent's Cloud Monitoring writer (cloudmon.Writer) of its registry's key series:
// started when the cluster's monitoring block turns cloud_monitoring on, restarted when the interval
// changes, stopped when it is turned off. Every VM runs one; the series carry the cluster's name.
type cloudMonState struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	interval time.Duration
	starts   int // writers started so far
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
	st.starts++
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
	if h.md == nil {
		return nil, errors.New("no metadata server to read the VM's project, zone and id from")
	}
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
		EmulatorHost: os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"), MetadataToken: true, UserAgent: "hypercompute-agent"})
	if err != nil {
		return nil, err
	}
	return &cloudmon.Writer{API: clients.Monitoring, Instance: cloudmon.Instance{Project: project, Zone: zone, InstanceID: id},
		Sources: sources, Filter: cloudmon.KeySeries, Log: h.log}, nil
}
