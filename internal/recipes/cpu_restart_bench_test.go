package recipes

import (
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRankCrashToRestartedStep measures what a crashed rank costs a run under the restart
// policy, on the package's real Slurm with the 2m CPU recipe on two ranks: the time from the
// SIGKILL of one rank to the first step the restarted run logs (the step's teardown by srun
// --kill-on-bad-exit, the policy's backoff, process start, torch.load of the newest checkpoint,
// gloo rendezvous), and the work lost — the training time and the steps redone since that
// checkpoint. The backoff is 1 s here; the default of 30 s adds to the first figure one for one.
func BenchmarkRankCrashToRestartedStep(b *testing.B) {
	needTorch(b)
	needSlurm(b)
	const backoff = 1
	var toStep, lost, redone, startup float64
	for i := 0; i < b.N; i++ {
		j := testCPUJob("tiny-crash-bench", b.TempDir(), 1000000)
		j.Checkpoint.IntervalSeconds = 2
		j.Restart = RestartPolicy{MaxRestarts: 1, BackoffSeconds: backoff}
		id := submit(b, j)
		before := waitTrained(b, j, id, 10)
		killRank(b, j)
		killed := time.Now()
		// The killed run's last record: where it was when it died.
		at, _ := readProgress(b, j.RunDir)
		var after Progress
		err := waitUntil(3*time.Minute, "the restarted run's first step", func() bool {
			p, ok := readProgress(b, j.RunDir)
			if ok && p.Restarts == before.Restarts+1 && p.Step > p.LastCheckpointStep && p.Step > at.LastCheckpointStep {
				after = p
				return true
			}
			return false
		})
		elapsed := time.Since(killed)
		_ = exec.Command("scancel", id).Run()
		if err != nil {
			b.Fatalf("%v; log:\n%s", err, jobLog(b, j, id))
		}
		toStep += elapsed.Seconds()
		lost += after.LostSeconds - at.LostSeconds
		redone += float64(at.Step - at.LastCheckpointStep)
		startup += after.StartupSeconds
	}
	n := float64(b.N)
	b.ReportMetric(toStep/n, "crash-to-step-s")
	b.ReportMetric(startup/n, "restart-startup-s")
	b.ReportMetric(lost/n, "lost-s")
	b.ReportMetric(redone/n, "steps-redone")
}
