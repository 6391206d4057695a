package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The failed-<partition> report lists the partition's nodes Slurm holds down with a resume
// failure's reason (not other down nodes, not another partition's), with the reason's time in
// UTC; a partition with dynamic nodes and no failure has its report deleted.
func TestReportResumeFailures(t *testing.T) {
	dyn := cc.Partition{Name: "dyn", MachineType: "n2-standard-2", MaxDynamicNodes: 4}
	other := cc.Partition{Name: "gpu", MachineType: "g2-standard-24", MaxDynamicNodes: 2}
	nodes, _ := cc.ExpandHostlist(dyn.DynamicNodeNames("c"))
	otherNodes, _ := cc.ExpandHostlist(other.DynamicNodeNames("c"))
	sinfo := strings.Join([]string{
		nodes[0] + "|down~|2026-12-01T10:00:00|resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left",
		nodes[1] + "|down|2026-12-01T10:00:01|hc:gpu: XID 79",
		nodes[2] + "|idle~|Unknown|none",
		nodes[3] + "|down#|2026-12-01T10:00:02|resume failed: QUOTA_EXCEEDED: Quota N2_CPUS exceeded",
		otherNodes[0] + "|idle|Unknown|none",
	}, "\n")
	var calls []string
	cli := sinfoCLI(&sinfo, &calls)
	ga := &fakeAttributes{values: map[string]string{cc.FailedAttr("gpu"): "stale"}}
	if _, err := reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn, other}, "c", testNow); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 {
		t.Errorf("Slurm was asked %d times, want once: %q", len(calls), calls)
	}
	got, err := cc.ParseFailures(ga.values[cc.FailedAttr("dyn")])
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) string {
		v, _ := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
		return v.UTC().Format(time.RFC3339)
	}
	want := []cc.NodeFailure{
		{Node: nodes[0], Reason: "resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left", Time: at("2026-12-01T10:00:00")},
		{Node: nodes[3], Reason: "resume failed: QUOTA_EXCEEDED: Quota N2_CPUS exceeded", Time: at("2026-12-01T10:00:02")},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("report = %+v\nwant %+v", got, want)
	}
	if _, ok := ga.values[cc.FailedAttr("gpu")]; ok {
		t.Errorf("a partition without failures keeps its report: %v", ga.values)
	}

	// At ResumeTimeout slurmctld replaces the reason with its own: the cloud's error goes back to
	// Slurm and stays in the report; a node that timed out without a cloud error (its VM never
	// registered) is listed with Slurm's reason.
	sinfo = strings.Join([]string{
		nodes[0] + "|down~|2026-12-01T10:03:00|ResumeTimeout reached",
		nodes[2] + "|down~|2026-12-01T10:03:01|ResumeTimeout reached",
		nodes[3] + "|idle~|Unknown|none",
	}, "\n")
	calls = nil
	if _, err := reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn, other}, "c", testNow); err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"sinfo -h -N -o %N|%T|%H|%E",
		"scontrol update nodename=" + nodes[0] + " state=down reason=resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left",
	}
	if strings.Join(calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("calls = %q\nwant %q", calls, wantCalls)
	}
	got, _ = cc.ParseFailures(ga.values[cc.FailedAttr("dyn")])
	want = []cc.NodeFailure{want[0], {Node: nodes[2], Reason: "ResumeTimeout reached", Time: at("2026-12-01T10:03:01")}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("report after ResumeTimeout = %+v\nwant %+v", got, want)
	}
}

// GuestAttributes reads back the values, as *Metadata does.
func (f *fakeAttributes) GuestAttributes(context.Context) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.values {
		out[k] = v
	}
	return out, nil
}

// Slurm is told the cloud's words on one line, clipped to a readable length.
func TestSlurmReason(t *testing.T) {
	if got := slurmReason("ZONE_RESOURCE_POOL_EXHAUSTED: The zone\n  has no   capacity"); got != "resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: The zone has no capacity" {
		t.Errorf("reason = %q", got)
	}
	if got := slurmReason(strings.Repeat("x", 1000)); len(got) > maxSlurmReason || !strings.HasSuffix(got, "...") {
		t.Errorf("long reason is %d bytes: %q", len(got), got)
	}
}
