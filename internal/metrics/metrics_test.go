package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// sinfo's long states with their flags fall in prometheus-slurm-exporter's groups; a drained node
// counts as drain whatever else it does.
func TestNodeStateGroup(t *testing.T) {
	for state, want := range map[string]string{"idle": "idle", "idle~": "idle", "idle*": "idle", "allocated+": "alloc",
		"mixed#": "mix", "drained": "drain", "draining": "drain", "drained*": "drain", "down*": "down", "completing": "comp",
		"reserved": "resv", "maint": "maint", "fail": "fail", "unknown": "", "future": ""} {
		if got := NodeStateGroup(state); got != want {
			t.Errorf("%q: %q, want %q", state, got, want)
		}
	}
	if QueueStateGroup("NODE_FAIL") != "node_fail" || QueueStateGroup("REQUEUE_HOLD") != "" {
		t.Error("queue state groups")
	}
}

// Series are replaced as a whole: a job gone from the list is gone from the registry, a value not
// reported (negative) is left out, and samplers run on a gather at most every two seconds.
func TestRegistry_replaceAndSample(t *testing.T) {
	r := New()
	samples := 0
	r.OnGather(func() { samples++ })
	r.SetJobs([]Job{{Name: "a", Partition: "cpu", State: "RUNNING", Step: 5, StepSeconds: -1, TokensPerSecond: 10, CheckpointAgeSeconds: -1, CheckpointCostSeconds: -1, CheckpointIntervalSeconds: -1}})
	if n := testutil.CollectAndCount(r.jobs.step); n != 1 {
		t.Errorf("%d step series", n)
	}
	if n := testutil.CollectAndCount(r.jobs.stepTime); n != 0 {
		t.Errorf("an unreported step time has %d series", n)
	}
	r.SetJobs(nil)
	if n := testutil.CollectAndCount(r.jobs.step); n != 0 {
		t.Errorf("a removed job keeps %d series", n)
	}
	r.SetSlurm(Slurm{Nodes: map[string]int{"idle": 3}, Queue: map[string]int{"pending": 2}, PartitionJobs: map[string]map[string]int{"cpu": {"pending": 2}}})
	want := "# HELP slurm_nodes_idle Nodes in state idle (sinfo).\n# TYPE slurm_nodes_idle gauge\nslurm_nodes_idle 3\n"
	if err := testutil.GatherAndCompare(r, strings.NewReader(want), "slurm_nodes_idle"); err != nil {
		t.Error(err)
	}
	r.Gather()
	r.Gather()
	if samples != 1 {
		t.Errorf("two gathers within 2 s sampled %d times", samples)
	}
	r.Refresh()
	if samples != 2 {
		t.Errorf("Refresh did not sample")
	}
	// A check's run is counted in the histogram once however often its result is set again.
	at := time.Now()
	for range 3 {
		r.SetHealthResults("n", []CheckResult{{Check: "disk", Passed: true, Seconds: 0.5, Time: at}})
	}
	if err := testutil.GatherAndCompare(r, strings.NewReader(`# HELP hypercompute_health_check_result Last result of a health check on this node: 1 passed, 0 failed.
# TYPE hypercompute_health_check_result gauge
hypercompute_health_check_result{check="disk",node="n"} 1
`), "hypercompute_health_check_result"); err != nil {
		t.Error(err)
	}
	if c := testutil.CollectAndCount(r.health.duration); c != 1 {
		t.Errorf("%d histogram series", c)
	}
	r.Repair("cpu", "replace", "started", true)
	if v := testutil.ToFloat64(r.health.escalations.WithLabelValues("cpu", "replace")); v != 1 {
		t.Errorf("escalations %v", v)
	}
}
