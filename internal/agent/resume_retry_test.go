package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// sinfoCLI is a Slurm CLI that answers every command with *sinfo (read at each call) and, with
// calls set, records each command line there.
func sinfoCLI(sinfo *string, calls *[]string) slurm.CLI {
	return slurm.CLI{Conf: "/etc/slurm/slurm.conf", Run: func(_ context.Context, _ []string, name string, args ...string) (string, error) {
		if calls != nil {
			*calls = append(*calls, name+" "+strings.Join(args, " "))
		}
		return *sinfo, nil
	}}
}

// testNow is when the resume-failure tests' passes run: 5 minutes after their failures (sinfo
// prints local times), before any node is due for a retry at the default 10 minutes.
var testNow = localTime("2026-12-01T10:05:00")

func localTime(s string) time.Time {
	v, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
	if err != nil {
		panic(err)
	}
	return v
}

// A failed node Slurm has held down and powered down for the partition's resume_retry_after is
// returned to service in one scontrol call and leaves the report; a node still powering up
// (down#), one not down long enough, and every node of a partition that never retries stay down
// and listed.
func TestResumeRetry(t *testing.T) {
	never := 0
	dyn := cc.Partition{Name: "dyn", MachineType: "n2-standard-2", MaxDynamicNodes: 4}
	held := cc.Partition{Name: "held", MachineType: "n2-standard-2", MaxDynamicNodes: 1, ResumeRetryAfter: &never}
	nodes, _ := cc.ExpandHostlist(dyn.DynamicNodeNames("c"))
	heldNodes, _ := cc.ExpandHostlist(held.DynamicNodeNames("c"))
	sinfo := strings.Join([]string{
		nodes[0] + "|down~|2026-12-01T10:00:00|resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left",
		nodes[1] + "|down#|2026-12-01T10:00:00|resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left",
		nodes[2] + "|down~|2026-12-01T10:09:00|resume failed: ZONE_RESOURCE_POOL_EXHAUSTED: no n2 left",
		nodes[3] + "|down~|2026-12-01T10:00:01|ResumeTimeout reached",
		heldNodes[0] + "|down~|2026-12-01T09:00:00|resume failed: QUOTA_EXCEEDED: Quota N2_CPUS exceeded",
	}, "\n")
	var calls []string
	cli := sinfoCLI(&sinfo, &calls)
	ga := &fakeAttributes{values: map[string]string{}}
	retried, err := reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn, held}, "c", localTime("2026-12-01T10:10:30"))
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"sinfo -h -N -o %N|%T|%H|%E",
		"scontrol update nodename=" + cc.CompressHostlist([]string{nodes[0], nodes[3]}) + " state=resume",
	}
	if strings.Join(calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("calls = %q\nwant %q", calls, wantCalls)
	}
	if strings.Join(retried, ",") != nodes[0]+","+nodes[3] {
		t.Errorf("retried = %v; want %s and %s", retried, nodes[0], nodes[3])
	}
	listed := func(partition string) []string {
		f, err := cc.ParseFailures(ga.values[cc.FailedAttr(partition)])
		if err != nil {
			t.Fatalf("report of %s: %v", partition, err)
		}
		var names []string
		for _, x := range f {
			names = append(names, x.Node)
		}
		return names
	}
	if got := strings.Join(listed("dyn"), ","); got != nodes[1]+","+nodes[2] {
		t.Errorf("dyn's report lists %s; want %s,%s", got, nodes[1], nodes[2])
	}
	if got := strings.Join(listed("held"), ","); got != heldNodes[0] {
		t.Errorf("held's report lists %s; want %s (resume_retry_after = 0 never retries)", got, heldNodes[0])
	}

	// scontrol refusing the update leaves the nodes listed and says so.
	cli.Run = func(_ context.Context, _ []string, name string, args ...string) (string, error) {
		if name == "scontrol" {
			return "", context.DeadlineExceeded
		}
		return sinfo, nil
	}
	retried, err = reportResumeFailures(context.Background(), ga, cli, []cc.Partition{dyn, held}, "c", localTime("2026-12-01T10:10:30"))
	if err == nil || !strings.Contains(err.Error(), "returning "+cc.CompressHostlist([]string{nodes[0], nodes[3]})+" to service") || len(retried) != 0 {
		t.Errorf("a failed update: retried %v, err %v", retried, err)
	}
	if got := len(listed("dyn")); got != 4 {
		t.Errorf("after a failed update dyn's report lists %d nodes; want all 4", got)
	}
}

// resume_retry_after defaults to 10 minutes; 0 is never.
func TestPartitionResumeRetry(t *testing.T) {
	never, hour := 0, 3600
	for _, tc := range []struct {
		after *int
		want  time.Duration
	}{{nil, 10 * time.Minute}, {&never, 0}, {&hour, time.Hour}} {
		if got := (cc.Partition{ResumeRetryAfter: tc.after}).ResumeRetry(); got != tc.want {
			t.Errorf("ResumeRetry with %v = %s; want %s", tc.after, got, tc.want)
		}
	}
}
