package goodput

import (
	"fmt"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// benchCheckpoint is the checkpoint both regimes write: 1,000 GiB (a
// 70B-parameter model with bf16 weights, fp32 master weights and Adam state,
// about 14-16 bytes per parameter) to a 36,000 GiB Managed Lustre instance at
// 1,000 MB/s per TiB (the field's default size, the fastest tier).
var benchCheckpoint = Checkpoint{SizeGiB: 1000, Target: catalog.CheckpointLustre, LustreThroughput: 1000, LustreCapacityGiB: catalog.DefaultLustreCapacityGiB}

// benchRegimes builds issue 14's comparison for a job on gpus H100s
// (a3-megagpu-8g) for 30 days: manual recovery (R = 30 min) with fixed
// hourly synchronous checkpoints and no spares, against automatic repair
// with the spare count that maximises goodput per node-hour and Young/Daly
// asynchronous checkpoints.
func benchRegimes(tb testing.TB, gpus int, nodeMTBI time.Duration) (manual, automatic Params) {
	tb.Helper()
	const machine = "a3-megagpu-8g"
	mt, _ := catalog.Machine(machine)
	nodes := gpus / mt.GPUCount()
	base := Params{Nodes: nodes, JobLength: 30 * 24 * time.Hour, NodeMTBI: nodeMTBI}

	sync := benchCheckpoint
	c, err := CheckpointCostFor(machine, nodes, sync)
	if err != nil {
		tb.Fatal(err)
	}
	manual = regime(tb, catalog.RecoveryManual, base)
	manual.CheckpointPause, manual.Interval = c.Pause, time.Hour

	async := benchCheckpoint
	async.Async = true
	c, err = CheckpointCostFor(machine, nodes, async)
	if err != nil {
		tb.Fatal(err)
	}
	automatic = regime(tb, catalog.RecoveryAutomatic, base)
	automatic.CheckpointPause, automatic.CheckpointPersist = c.Pause, c.Persist
	best, err := BestSpares(automatic, DefaultMaxSpares(nodes))
	if err != nil {
		tb.Fatal(err)
	}
	automatic.Spares = best.Spares
	return manual, automatic
}

// BenchmarkGoodput simulates 1,024 and 16,384 GPUs for 30 days under both
// regimes, with the catalog's failure figure (Llama 3's record) and with
// Meta's pessimistic one, and reports the simulated goodput (mean and 95%
// interval over 100 replications), the planner's, and the time lost per
// cause. Run: go test -run '^$' -bench Goodput ./internal/goodput/
func BenchmarkGoodput(b *testing.B) {
	h100, err := catalog.NodeMTBI("a3-mega")
	if err != nil {
		b.Fatal(err)
	}
	meta := time.Duration(catalog.MetaRSCGPUMTBIHours / 8 * float64(time.Hour))
	for _, mtbf := range []struct {
		name string
		node time.Duration
	}{{"llama3", h100}, {"meta", meta}} {
		for _, gpus := range []int{1024, 16384} {
			manual, automatic := benchRegimes(b, gpus, mtbf.node)
			for _, r := range []struct {
				name string
				p    Params
			}{{"manual", manual}, {"automatic", automatic}} {
				b.Run(fmt.Sprintf("mtbf=%s/gpus=%d/%s", mtbf.name, gpus, r.name), func(b *testing.B) {
					var sim SimResult
					for b.Loop() {
						if sim, err = Simulate(SimConfig{Params: r.p, Replications: 100, Seed: 14}); err != nil {
							b.Fatal(err)
						}
					}
					plan, err := Compute(r.p)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(100*sim.Goodput.Mean, "goodput%")
					b.ReportMetric(100*sim.Goodput.Low, "ci-low%")
					b.ReportMetric(100*sim.Goodput.High, "ci-high%")
					b.ReportMetric(100*plan.Goodput, "planned%")
					b.ReportMetric(sim.Interruptions.Mean, "interruptions")
					b.ReportMetric(sim.Lost.Checkpointing.Hours(), "ckpt-h")
					b.ReportMetric(sim.Lost.Rework.Hours(), "rework-h")
					b.ReportMetric(sim.Lost.Recovery.Hours(), "recovery-h")
					b.ReportMetric(sim.Lost.SpareWait.Hours(), "sparewait-h")
					b.ReportMetric(float64(r.p.Spares), "spares")
					// Spares are paid for too: goodput per node-hour of the whole pool.
					b.ReportMetric(100*sim.Goodput.Mean*float64(r.p.Nodes)/float64(r.p.Nodes+r.p.Spares), "per-node-hour%")
					b.ReportMetric(plan.Interval.Seconds(), "interval-s")
					b.ReportMetric(r.p.CheckpointPause.Seconds(), "pause-s")
				})
			}
		}
	}
}
