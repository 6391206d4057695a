package agent

import (
	"context"
	"io"
	"log/slog"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The writer runs while cloud_monitoring is on, is started again when the interval changes, and
// stops when it is turned off or the block goes away.
func TestCloudMonitoringLifecycle(t *testing.T) {
	h := &host{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()
	h.cloudMonitoring(ctx, &h.cloud, "hc", &cc.Monitoring{CloudMonitoring: true})
	if h.cloud.cancel == nil || h.cloud.starts != 1 || h.cloud.interval != cc.DefaultScrapeInterval*1e9 {
		t.Fatalf("writer not started: %d starts, interval %s", h.cloud.starts, h.cloud.interval)
	}
	h.cloudMonitoring(ctx, &h.cloud, "hc", &cc.Monitoring{CloudMonitoring: true})
	if h.cloud.starts != 1 {
		t.Fatalf("the same settings started the writer again: %d starts", h.cloud.starts)
	}
	h.cloudMonitoring(ctx, &h.cloud, "hc", &cc.Monitoring{CloudMonitoring: true, ScrapeInterval: 60})
	if h.cloud.cancel == nil || h.cloud.starts != 2 || h.cloud.interval != 60e9 {
		t.Fatalf("a new interval did not restart the writer: %d starts, interval %s", h.cloud.starts, h.cloud.interval)
	}
	h.cloudMonitoring(ctx, &h.cloud, "hc", &cc.Monitoring{CloudMonitoring: false})
	if h.cloud.cancel != nil {
		t.Fatal("cloud_monitoring off left the writer running")
	}
	h.cloudMonitoring(ctx, &h.cloud, "hc", &cc.Monitoring{CloudMonitoring: true})
	h.cloudMonitoring(ctx, &h.cloud, "hc", nil)
	if h.cloud.cancel != nil {
		t.Fatal("no monitoring block left the writer running")
	}
}
