package recipes

import (
	"path/filepath"
	"testing"
)

// BenchmarkTinyGPTCheckpointAndResume measures, for the 2m CPU recipe on
// one rank: the cost of one checkpoint (torch.save of model, optimizer and
// RNG to a temporary directory, fsync, rename), the startup of a fresh run
// (process start to first step) and of a resumed one (the same plus
// torch.load of the newest checkpoint).
func BenchmarkTinyGPTCheckpointAndResume(b *testing.B) {
	needTorch(b)
	var cost, fresh, resumed float64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		j := singleRankJob(filepath.Join(dir, "run"), ModePretrain, 5)
		j.Checkpoint.IntervalSeconds = 1
		runTrainer(b, j, 0)
		p := progressOf(b, j)
		cost += p.CheckpointCostSecond
		fresh += p.StartupSeconds
		j.MaxSteps = 7
		runTrainer(b, j, 0)
		resumed += progressOf(b, j).StartupSeconds
	}
	n := float64(b.N)
	b.ReportMetric(cost/n, "checkpoint-s")
	b.ReportMetric(fresh/n, "fresh-start-s")
	b.ReportMetric(resumed/n, "resume-start-s")
}
