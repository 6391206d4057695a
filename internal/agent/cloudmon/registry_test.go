package cloudmon_test

import (
	"context"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
)

// The agent's own registry, written as the agent writes it, reaches Cloud Monitoring under the names
// and labels the provider's alert policies filter by (GoodputBelowTarget's cluster-wide runtime goodput
// over a day, RepairFailing's failed repairs); the registry's Go runtime series are not written.
func TestRegistrySeriesReachCloudMonitoring(t *testing.T) {
	_, svc := api(t)
	begin := time.Now().Add(-time.Second)
	reg := metrics.New()
	reg.SetGoodput([]metrics.Goodput{{Window: "1d", Scheduling: 0.9, Runtime: 0.72, Program: 0.4, Partitions: map[string]float64{"a3": 0.7}}})
	reg.SetHealthResults("hc-a3-0", []metrics.CheckResult{{Check: "gpu", Passed: false, Seconds: 2, Schedule: "periodic", Time: time.Now()}})
	reg.Repair("a3", "reboot", "failed", false)
	w := &cloudmon.Writer{API: svc, Instance: cloudmon.Instance{Project: project, Zone: "us-central1-a", InstanceID: "77"},
		Sources: []cloudmon.Source{cloudmon.FromGatherer(reg)}, Filter: cloudmon.KeySeries, Labels: map[string]string{cloudmon.ClusterLabel: "hc"}}
	if err := w.Write(context.Background()); err != nil {
		t.Fatal(err)
	}
	goodput := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/goodput_ratio" AND metric.labels.cluster = "hc" AND metric.labels.kind = "runtime" AND metric.labels.window = "1d" AND metric.labels.partition = ""`, begin)
	if len(goodput) != 1 || *goodput[0].Points[0].Value.DoubleValue != 0.72 {
		t.Fatalf("cluster-wide runtime goodput: %+v, want one series at 0.72", goodput)
	}
	failed := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/health_repairs_total" AND metric.labels.outcome = "failed"`, begin)
	if len(failed) != 1 || failed[0].MetricKind != "CUMULATIVE" || *failed[0].Points[0].Value.DoubleValue != 1 {
		t.Fatalf("failed repairs: %+v", failed)
	}
	if got := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/health_check_result" AND metric.labels.check = "gpu"`, begin); len(got) != 1 {
		t.Errorf("health check result series: %+v", got)
	}
	if got := list(t, svc, `metric.type = starts_with("workload.googleapis.com/hypercompute/go_")`, begin); len(got) != 0 {
		t.Errorf("Go runtime series were written: %d", len(got))
	}
}
