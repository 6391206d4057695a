package goodput

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func TestCheckpointCostFor(t *testing.T) {
	// 1,000 GiB to Lustre at 1,000 MBps/TiB × 36,000 GiB: the instance
	// writes 36,000/1,024 × 1,000 = 35,156.25 MB/s, so the checkpoint takes
	// 1,000 × 2³⁰ B / 35,156.25e6 B/s ≈ 30.54 s, all of it a pause.
	c, err := CheckpointCostFor("a3-megagpu-8g", 128, Checkpoint{SizeGiB: 1000, Target: catalog.CheckpointLustre, LustreThroughput: 1000, LustreCapacityGiB: 36000})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.WriteMBps-35156.25) > 1e-9 || math.Abs(c.Pause.Seconds()-30.542) > 0.001 || c.Persist != 0 {
		t.Errorf("lustre sync: %+v", c)
	}
	// Async: the pause is each GPU's shard over PCIe — 1,000 GiB / 1,024
	// GPUs = 1.0486e9 B at 64 GB/s ≈ 16.4 ms — and the write persists behind.
	c, err = CheckpointCostFor("a3-megagpu-8g", 128, Checkpoint{SizeGiB: 1000, Target: catalog.CheckpointLustre, LustreThroughput: 1000, LustreCapacityGiB: 36000, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Pause.Seconds()-0.016384) > 1e-5 || math.Abs(c.Persist.Seconds()-30.542) > 0.001 {
		t.Errorf("lustre async: %+v", c)
	}
	// A bucket gives every VM 4,624.59 MB/s for its shard: 2,000 GiB over 4
	// VMs is 2,000 × 2³⁰ / (4 × 4,624.59e6) ≈ 116.1 s — minutes of pause.
	c, err = CheckpointCostFor("a3-megagpu-8g", 4, Checkpoint{SizeGiB: 2000, Target: catalog.CheckpointBucket})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Pause.Seconds()-116.10) > 0.01 {
		t.Errorf("bucket: %v, want ≈ 116.10 s", c.Pause)
	}
	// Local SSD: 16 devices per a3-mega VM.
	c, err = CheckpointCostFor("a3-megagpu-8g", 2, Checkpoint{SizeGiB: 100, Target: catalog.CheckpointLocalSSD})
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * float64(gib) / (2 * 16 * catalog.LocalSSDWriteMBpsPerDevice * 1e6); math.Abs(c.Pause.Seconds()-want) > 1e-6 {
		t.Errorf("local ssd %v, want %.3f s", c.Pause, want)
	}
	for _, bad := range []struct {
		mt   string
		n    int
		c    Checkpoint
		want string
	}{
		{"a3-megagpu-8g", 1, Checkpoint{SizeGiB: 10, Target: catalog.CheckpointLustre, LustreThroughput: 300, LustreCapacityGiB: 36000}, "per_unit_storage_throughput 300 is not offered"},
		{"a3-megagpu-8g", 1, Checkpoint{SizeGiB: 10, Target: catalog.CheckpointLustre, LustreThroughput: 1000, LustreCapacityGiB: 1000}, "below the minimum 9000"},
		{"a3-megagpu-8g", 1, Checkpoint{SizeGiB: -1, Target: catalog.CheckpointBucket}, "checkpoint size must be positive"},
		{"a3-megagpu-8g", 1, Checkpoint{SizeGiB: 10, Target: "tape"}, `checkpoint target "tape" is not one of lustre, local-ssd, bucket`},
		{"n2-standard-8", 1, Checkpoint{SizeGiB: 10, Target: catalog.CheckpointLocalSSD}, "no bundled local SSD"},
		{"n2-standard-8", 1, Checkpoint{SizeGiB: 10, Target: catalog.CheckpointBucket, Async: true}, "has no GPU"},
		{"a3-megagpu-8g", 0, Checkpoint{SizeGiB: 10, Target: catalog.CheckpointBucket}, "nodes must be at least 1"},
	} {
		if _, err := CheckpointCostFor(bad.mt, bad.n, bad.c); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: error %v, want %q", bad.c, err, bad.want)
		}
	}
}

func TestWarnings(t *testing.T) {
	h100 := nodeMTBI(t, "a3-mega")
	base := regime(t, catalog.RecoveryAutomatic, Params{Nodes: 128, Spares: 2, JobLength: 30 * 24 * time.Hour, NodeMTBI: h100, CheckpointPause: 10 * time.Second})
	plan, err := Compute(base)
	if err != nil {
		t.Fatal(err)
	}
	if w := Warnings(base, plan, catalog.CheckpointLustre); len(w) != 0 {
		t.Errorf("a good plan warns: %q", w)
	}
	check := func(name string, p Params, target, want string) {
		t.Helper()
		plan, err := Compute(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := strings.Join(Warnings(p, plan, target), "\n")
		if !strings.Contains(w, want) {
			t.Errorf("%s: warnings %q lack %q", name, w, want)
		}
	}
	slow := base
	slow.CheckpointPause = 3 * time.Minute
	check("minutes to a bucket", slow, catalog.CheckpointBucket, "each synchronous checkpoint to bucket pauses training for 3m0s")
	far := base
	far.Interval = 8 * time.Hour
	check("interval far from optimum", far, "", "checkpoint interval 8h0m0s is far from the optimum")
	huge := base
	huge.Nodes = 2048
	huge.CheckpointPause = 4 * time.Hour
	check("checkpoint longer than MTBF", huge, "", "longer than the job's mean time between interruptions")
	short := base
	short.Nodes, short.Spares = 2048, 0
	check("no spares", short, "", "of interruptions find no free spare")
	check("local ssd", base, catalog.CheckpointLocalSSD, "lost with their node")
	async := base
	async.CheckpointPersist, async.Interval = 5*time.Minute, time.Minute
	check("interval shorter than the persist time", async, "", "checkpoints are taken every 5m0s instead")
	check("low goodput", huge, "", "is below 90%; the largest loss is")
}

func TestBestSpares(t *testing.T) {
	h100 := nodeMTBI(t, "a3-mega")
	p := regime(t, catalog.RecoveryAutomatic, Params{Nodes: 2048, JobLength: 30 * 24 * time.Hour, NodeMTBI: h100, CheckpointPause: 10 * time.Second})
	best, err := BestSpares(p, DefaultMaxSpares(p.Nodes))
	if err != nil {
		t.Fatal(err)
	}
	// At 16,384 GPUs a spare costs 1/2049 of the bill while it saves a
	// 20-minute repair wait at every one of ~230 interruptions: some spares
	// pay, and more than the best do not pay more.
	if best.Spares == 0 {
		t.Fatalf("no spares chosen for a 2,048-node job: %+v", best)
	}
	for _, s := range []int{0, best.Spares + 8} {
		q := p
		q.Spares = s
		plan, _ := Compute(q)
		if v := plan.Goodput * 2048 / float64(2048+s); v >= best.PerNodeHour {
			t.Errorf("%d spares give %.5f per node-hour, no worse than the chosen %d (%.5f)", s, v, best.Spares, best.PerNodeHour)
		}
	}
	// Under manual recovery a person's swap takes as long as a repair, so
	// spares are worth fewer node-hours than with automatic recovery.
	m := regime(t, catalog.RecoveryManual, p)
	manual, _ := BestSpares(m, DefaultMaxSpares(p.Nodes))
	if manual.Spares >= best.Spares {
		t.Errorf("manual recovery wants %d spares, automatic %d", manual.Spares, best.Spares)
	}
}

func TestValidate(t *testing.T) {
	ok := Params{Nodes: 1, JobLength: time.Hour, NodeMTBI: time.Hour, CheckpointPause: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mut  func(*Params)
		want string
	}{
		{func(p *Params) { p.Nodes = 0 }, "nodes must be at least 1"},
		{func(p *Params) { p.Spares = -1 }, "spares must not be negative"},
		{func(p *Params) { p.NodeMTBI = -time.Hour }, "node MTBF must be positive"},
		{func(p *Params) { p.JobLength = 0 }, "job length must be positive"},
		{func(p *Params) { p.Repair = -time.Minute }, "repair time must not be negative"},
		{func(p *Params) { p.CheckpointPause = 2 * time.Hour }, "takes as long as the whole job"},
		{func(p *Params) { p.CheckpointPause = 0 }, "give the interval"},
	} {
		p := ok
		tc.mut(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
		if _, err := Compute(p); err == nil {
			t.Errorf("Compute accepted what Validate refuses (%q)", tc.want)
		}
	}
}
