package agent_test

import (
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// BenchmarkHealthRepair measures on the local runtime (real Slurm, the emulator's Compute API) what
// a node failure costs under a health policy with a 1 s check interval: detection (the fault
// appears → Slurm shows the node drained with the check's reason), repair (drained → back in
// service after instances.reset), and the job time lost to the failure (wall time of the resuming
// job beyond its failure-free 12 s) for checkpoints every 1 s and every 4 s. One cluster serves
// every run; `make bench` runs it once (-benchtime 1x).
func BenchmarkHealthRepair(b *testing.B) {
	pol := testPolicy()
	pol.IntervalSeconds = 1
	pol.Escalation = nil
	pol.Generation = "bench"
	h := startHealthCluster(b, "hb", 2, pol)
	benchRepairs(b, h, h.fill, cc.CheckDisk)
}

// BenchmarkHealthGPURepair is BenchmarkHealthRepair on a partition of g2-standard-4 nodes (one L4
// each, the GPU tool stand-ins): the fault is uncorrected ECC errors reported by the node's
// nvidia-smi, the ecc check drains it and the repair is a replace (reportHostAsFaulty: the VM
// restarts on a new host, whose GPUs are healthy).
func BenchmarkHealthGPURepair(b *testing.B) {
	pol := cc.HealthPolicy{
		Name:            "bench-gpu",
		Checks:          []cc.HealthCheckSpec{{Name: cc.CheckECC, Schedules: []string{cc.SchedulePeriodic, cc.ScheduleBoot}, Action: cc.ActionReplace}},
		IntervalSeconds: 1,
		RequeueJobs:     true,
		Limits:          cc.HealthLimits{MaxConcurrentRepairs: 1, MaxUnavailablePercent: 50},
		Generation:      "bench",
	}
	h := startHealthClusterOf(b, "hgb", "g2-standard-4", 2, pol)
	benchRepairs(b, h, func(n string) { h.gpuFault(n, `{"uncorrectedEcc": 1}`) }, cc.CheckECC)
}

// benchRepairs fails a job's node with fault for checkpoints every 1 s and 4 s and reports the
// mean detection and repair latencies and the job time lost per interval.
func benchRepairs(b *testing.B, h *healthCluster, fault func(node string), check string) {
	var detect, repair time.Duration
	lost := map[int]time.Duration{}
	runs := 0
	b.ResetTimer()
	for range b.N {
		for _, every := range []int{5, 20} { // steps of 0.2 s: checkpoints every 1 s and 4 s
			start := time.Now()
			job, node := h.submit(every)
			// Fail just before a checkpoint is due, the worst case for the interval.
			h.waitFor("progress", 30*time.Second, func() (string, bool) { s := h.step(job); return "", s >= every+every-1 })
			faulted := time.Now()
			fault(node)
			h.waitFor(node+" drained", 30*time.Second, func() (string, bool) {
				s := h.nodeState(node)
				return s, strings.HasPrefix(s, "drain") && strings.Contains(s, cc.HealthDrainPrefix+check)
			})
			drained := time.Now()
			detect += drained.Sub(faulted)
			h.waitFor(node+" back", 150*time.Second, func() (string, bool) {
				s := h.nodeState(node)
				return s, strings.HasSuffix(s, "|none") && !strings.HasPrefix(s, "drain")
			})
			repair += time.Since(drained)
			h.waitDone(job)
			lost[every] += time.Since(start) - jobSteps*stepTime
			runs++
		}
	}
	b.StopTimer()
	n := time.Duration(runs)
	b.ReportMetric((detect / n).Seconds(), "detect-s")
	b.ReportMetric((repair / n).Seconds(), "repair-s")
	b.ReportMetric((lost[5] / time.Duration(b.N)).Seconds(), "lost-s/ckpt-1s")
	b.ReportMetric((lost[20] / time.Duration(b.N)).Seconds(), "lost-s/ckpt-4s")
}
