package agent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Spare nodes on real Slurm: with spare_node_count = 1 of three nodes, one idle node is held in
// the spare reservation and a two-node job runs on the others; when a node of the job fails its
// check, the spare leaves the reservation and the requeued job runs on two nodes again (the spare
// among them) while the failed node is repaired; back in service, the repaired node is the new
// spare, and the job finishes from its checkpoint. Removing the policy frees the spares.
func TestHealthSpareNodesOnTheLocalRuntime(t *testing.T) {
	pol := testPolicy()
	pol.Escalation = nil
	pol.SpareNodes = 1
	pol.Limits.MaxUnavailablePercent = 50
	h := startHealthCluster(t, "hs", 3, pol)
	res := cc.SpareReservation("cpu")
	spares := func() string {
		out := h.slurm("scontrol -o show reservation " + res + " 2>/dev/null")
		for _, f := range strings.Fields(out) {
			if v, ok := strings.CutPrefix(f, "Nodes="); ok {
				return v
			}
		}
		return ""
	}
	spare := h.waitFor("a spare", 60*time.Second, func() (string, bool) { s := spares(); return s, s != "" })
	if spare != h.nodes[0] {
		t.Errorf("the spare is %q, want the first idle node %s", spare, h.nodes[0])
	}
	job := h.slurm("sbatch --parsable --requeue -N2 -o /dev/null --export=ALL,CKPT_EVERY=1 /home/job.sh")
	jobNodes := func() (string, []string) {
		s := h.slurm("squeue -h -j " + job + " -o '%T|%N'")
		st, list, _ := strings.Cut(s, "|")
		nodes, _ := cc.ExpandHostlist(list)
		return st, nodes
	}
	var first []string
	h.waitFor("job "+job+" running", 30*time.Second, func() (string, bool) {
		st, n := jobNodes()
		first = n
		return st + " " + strings.Join(n, ","), st == "RUNNING" && len(n) == 2
	})
	for _, n := range first {
		if n == spare {
			t.Fatalf("the job runs on the spare %s: %v", spare, first)
		}
	}
	h.waitFor("a checkpoint", 30*time.Second, func() (string, bool) { return "", h.step(job) >= 10 })
	failed := first[0]
	h.fill(failed)
	h.waitFor("the job running on the spare", 60*time.Second, func() (string, bool) {
		st, n := jobNodes()
		return st + " " + strings.Join(n, ",") + " spares " + spares(), st == "RUNNING" && len(n) == 2 && strings.Contains(strings.Join(n, ","), spare)
	})
	h.waitFor(failed+" back as the spare", 120*time.Second, func() (string, bool) {
		s := spares()
		return s + " " + h.nodeState(failed), s == failed
	})
	h.waitDone(job)
	starts := strings.Split(h.slurm("cat /home/starts-"+job), "\n")
	if len(starts) < 2 || strings.HasPrefix(starts[len(starts)-1], "start 0 ") {
		t.Errorf("the job did not resume from its checkpoint; its starts: %q", starts)
	}
	r := h.health()
	if !hasEvent(r, spare, "spare-released") || !hasEvent(r, failed, "spare-added") || !hasRepair(r, failed, cc.ActionReboot, "ok") {
		t.Errorf("health records lack the spare swap or the repair: %+v", r.Events)
	}
	var rec cc.NodeHealth
	h.waitFor(failed+"'s record as the spare", 30*time.Second, func() (string, bool) {
		_ = json.Unmarshal([]byte(h.c.attrs(h.controller)[cc.HealthNodeAttr(failed)]), &rec)
		return fmt.Sprintf("%+v", rec), rec.Spare
	})
	// Without the policy no node stays reserved.
	h.c.deleteMetadata(h.controller, cc.HealthPolicyKey(pol.Name))
	h.waitFor("the spare reservation gone", 60*time.Second, func() (string, bool) { s := spares(); return s, s == "" })
	h.waitFor(failed+" idle", 30*time.Second, func() (string, bool) { s := h.nodeState(failed); return s, s == "idle|none" })
}
