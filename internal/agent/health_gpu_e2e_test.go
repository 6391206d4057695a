package agent_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// gpuFault tells the emulator to make a VM's GPU tool stand-ins report a fault (admin :gpuFault).
func (h *healthCluster) gpuFault(node, body string) {
	h.tb.Helper()
	resp, err := http.Post(h.c.env.URL+"/emulator/v1/projects/"+project+"/zones/"+zone+"/instances/"+node+":gpuFault", "application/json", strings.NewReader(body))
	if err != nil {
		h.tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.tb.Fatalf("%s:gpuFault answered %s", node, resp.Status)
	}
}

// A GPU partition on real Slurm: its nodes register with their gres (gres.conf names
// /dev/nvidia0, which the local runtime gives a GPU VM), and uncorrected ECC errors reported by a
// node's nvidia-smi while a job runs drain it with the ecc check's reason; the controller requeues
// the job and replaces the VM (reportHostAsFaulty: a new host, healthy GPUs), the node returns to
// IDLE and the job finishes from its checkpoint.
func TestHealthPolicyGPUFaultOnTheLocalRuntime(t *testing.T) {
	pol := cc.HealthPolicy{
		Name: "gpu",
		Checks: []cc.HealthCheckSpec{
			{Name: cc.CheckGPU, Schedules: []string{cc.SchedulePeriodic, cc.ScheduleBoot}, Action: cc.ActionReplace},
			{Name: cc.CheckECC, Schedules: []string{cc.SchedulePeriodic, cc.ScheduleBoot}, Action: cc.ActionReplace},
		},
		IntervalSeconds: 2,
		RequeueJobs:     true,
		Limits:          cc.HealthLimits{MaxConcurrentRepairs: 1, MaxUnavailablePercent: 50},
		Generation:      "g1",
	}
	h := startHealthClusterOf(t, "hg", "g2-standard-4", 2, pol)
	if gres := h.slurm("sinfo -h -N -n " + h.nodes[0] + " -o %G"); gres != "gpu:l4:1" {
		t.Fatalf("%s registered with gres %q, want gpu:l4:1", h.nodes[0], gres)
	}
	job, node := h.submit(1)
	h.waitFor("a checkpoint", 30*time.Second, func() (string, bool) { v := h.step(job); return strconv.Itoa(v), v >= 10 })
	before := h.vm(node)
	h.gpuFault(node, `{"uncorrectedEcc": 3}`)
	h.waitFor(node+" drained", 30*time.Second, func() (string, bool) {
		s := h.nodeState(node)
		return s, strings.HasPrefix(s, "drain") && strings.Contains(s, "hc:ecc: GPU 0 has 3 uncorrected volatile ECC errors")
	})
	h.waitFor(node+" back in service", 150*time.Second, func() (string, bool) {
		s := h.nodeState(node)
		return s, strings.HasSuffix(s, "|none") && !strings.HasPrefix(s, "drain")
	})
	if after := h.vm(node); after.GetResourceStatus().GetPhysicalHost() == before.GetResourceStatus().GetPhysicalHost() {
		t.Errorf("%s was replaced on the same host", node)
	}
	if ecc := h.c.exec(node, "nvidia-smi", "--query-gpu=ecc.errors.uncorrected.volatile.total", "--format=csv,noheader,nounits"); strings.TrimSpace(ecc) != "0" {
		t.Errorf("on its new host %s still reports %q ECC errors", node, ecc)
	}
	h.waitDone(job)
	starts := strings.Split(h.slurm("cat /home/starts-"+job), "\n")
	if len(starts) < 2 || strings.HasPrefix(starts[len(starts)-1], "start 0 ") {
		t.Errorf("the job did not resume from its checkpoint; its starts: %q", starts)
	}
	r := h.health()
	if !hasEvent(r, node, "requeued") || !hasRepair(r, node, cc.ActionReplace, "ok") {
		t.Errorf("health records lack the requeue or the replace of %s: %+v", node, r)
	}
}

// The NCCL check's pairwise pass on real Slurm: `hypercompute-agent nccl-pairs` on the controller
// runs all_reduce_perf across pairs of idle nodes with srun; the node whose stand-in reports low
// bus bandwidth fails its first pair, the second pass pairs each node of that pair with a
// known-good node, and only the slow node is drained with the nccl check's reason.
func TestHealthNCCLPairsOnTheLocalRuntime(t *testing.T) {
	pol := cc.HealthPolicy{
		Name:            "nccl",
		Checks:          []cc.HealthCheckSpec{{Name: cc.CheckNCCL, Schedules: []string{cc.ScheduleOnDemand}, MinBusBandwidthGBps: 20}},
		IntervalSeconds: 2,
		Generation:      "g1",
	}
	h := startHealthClusterOf(t, "hn", "g2-standard-4", 3, pol)
	slow := h.nodes[1]
	h.gpuFault(slow, `{"busBandwidthGBps": 5}`)
	out := h.c.exec(h.controller, "/var/lib/hypercompute/bin/hypercompute-agent", "nccl-pairs", "gpu")
	t.Logf("nccl-pairs:\n%s", out)
	if !strings.Contains(out, "drained "+slow+": hc:nccl: pairwise all_reduce bus bandwidth below 20 GB/s") {
		t.Errorf("the pairwise pass did not drain %s:\n%s", slow, out)
	}
	for _, n := range h.nodes {
		s := h.nodeState(n)
		if drained := strings.HasPrefix(s, "drain"); drained != (n == slow) {
			t.Errorf("%s is %q after the pairwise pass; only %s should be drained", n, s, slow)
		}
	}
	if s := h.nodeState(slow); !strings.Contains(s, "hc:nccl:") {
		t.Errorf("%s drained with %q, not the nccl check's reason", slow, s)
	}
}
