package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A partition removed from the desired configuration loses its failed-<partition> report, even
// one an earlier agent run or the ResumeProgram wrote (the report is found among the guest
// attributes, not in this agent's memory): a partition created later under the same name would
// otherwise show the old nodes as failed. Reports of partitions still desired, and other guest
// attributes, stay.
func TestReportResumeFailuresRemovedPartition(t *testing.T) {
	dyn := cc.Partition{Name: "dyn", MachineType: "n2-standard-2", MaxDynamicNodes: 4}
	nodes, _ := cc.ExpandHostlist(dyn.DynamicNodeNames("c"))
	sinfo := nodes[0] + "|down~|2026-12-01T10:00:00|resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left"
	cli := sinfoCLI(&sinfo, nil)
	old := `[{"node":"c-old-d0","reason":"resume failed: QUOTA_EXCEEDED","time":"2026-11-30T09:00:00Z"}]`
	ga := &fakeAttributes{values: map[string]string{
		cc.FailedAttr("old"):     old,
		cc.FailedAttr("old-gpu"): old,
		cc.RegisteredAttr("old"): "c-old-[0-1]",
		cc.GuestAttrConfigHash:   "abc",
	}}
	if _, err := reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn}, "c", testNow); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"old", "old-gpu"} {
		if v, ok := ga.values[cc.FailedAttr(p)]; ok {
			t.Errorf("removed partition %s keeps its report %s", p, v)
		}
	}
	if f, err := cc.ParseFailures(ga.values[cc.FailedAttr("dyn")]); err != nil || len(f) != 1 || f[0].Node != nodes[0] {
		t.Errorf("the desired partition's report = %v (%v); want %s failed", f, err, nodes[0])
	}
	if ga.values[cc.RegisteredAttr("old")] == "" || ga.values[cc.GuestAttrConfigHash] != "abc" {
		t.Errorf("other guest attributes were touched: %v", ga.values)
	}

	// Nothing left to remove: the next pass deletes no report that is not there.
	ga.puts = nil
	if _, err := reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn}, "c", testNow); err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(ga.puts, func(p string) bool { return strings.HasPrefix(p, "-") }); i >= 0 {
		t.Errorf("a pass with nothing removed deleted %s: %q", ga.puts[i], ga.puts)
	}
}
