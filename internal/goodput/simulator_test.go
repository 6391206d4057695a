package goodput

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Every second of the job is accounted for exactly once: progress plus the
// four causes of loss add up to the job length, in every replication.
func TestSimulatorAccountsForEverySecond(t *testing.T) {
	for _, tc := range agreementCases(t) {
		W := tc.p.JobLength.Seconds()
		for i := range 5 {
			r := replicate(tc.p, rand.New(rand.NewPCG(1, uint64(i))))
			sum := r.useful + r.checkpoint + r.rework + r.recovery + r.wait
			if math.Abs(sum-W) > 1e-6*W {
				t.Errorf("%s #%d: parts add up to %.1f s, job is %.1f s (%+v)", tc.name, i, sum, W, r)
			}
			if r.failures == 0 {
				t.Errorf("%s #%d: no failure in a month", tc.name, i)
			}
		}
	}
}

func TestSimulatorIsSeeded(t *testing.T) {
	p := agreementCases(t)[3].p
	a, _ := Simulate(SimConfig{Params: p, Replications: 5, Seed: 7})
	b, _ := Simulate(SimConfig{Params: p, Replications: 5, Seed: 7})
	c, _ := Simulate(SimConfig{Params: p, Replications: 5, Seed: 8})
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	if a.Goodput == c.Goodput {
		t.Error("different seeds gave identical goodput")
	}
}

// Without failures the only loss is the checkpoint pause: goodput T/(T+C).
// (The planner still expects 3e-4 failures in 100 h at this MTBF.)
func TestSimulatorWithoutFailures(t *testing.T) {
	p := Params{Nodes: 8, JobLength: 100 * time.Hour, NodeMTBI: math.MaxInt64, CheckpointPause: time.Minute, Interval: 59 * time.Minute}
	sim, err := Simulate(SimConfig{Params: p, Replications: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := Compute(p)
	if sim.Failures != 0 || math.Abs(sim.Goodput.Mean-59.0/60) > 1e-9 || math.Abs(plan.Goodput-59.0/60) > 1e-5 {
		t.Errorf("no failures: sim %+v (failures %d), plan %.6f; want 59/60", sim.Goodput, sim.Failures, plan.Goodput)
	}
}

// More replications narrow the confidence interval, which still holds the mean.
func TestSimulatorConfidenceInterval(t *testing.T) {
	p := agreementCases(t)[4].p
	few, _ := Simulate(SimConfig{Params: p, Replications: 5, Seed: 3})
	many, _ := Simulate(SimConfig{Params: p, Replications: 80, Seed: 3})
	for _, e := range []Estimate{few.Goodput, many.Goodput} {
		if !(e.Low < e.Mean && e.Mean < e.High) {
			t.Errorf("interval %+v does not hold its mean", e)
		}
	}
	if many.Goodput.High-many.Goodput.Low >= few.Goodput.High-few.Goodput.Low {
		t.Errorf("80 replications %+v no narrower than 5 %+v", many.Goodput, few.Goodput)
	}
	if _, err := Simulate(SimConfig{Params: p, Replications: 1}); err == nil || !strings.Contains(err.Error(), "replications must be at least 2") {
		t.Errorf("one replication: %v", err)
	}
	bad := p
	bad.Nodes = 0
	if _, err := Simulate(SimConfig{Params: bad, Replications: 5}); err == nil {
		t.Error("zero nodes simulated")
	}
}

// Spares matter in the simulation the way the planner says: at 16,384 GPUs
// with automatic repair, 8 spares nearly remove the wait for repairs.
func TestSimulatorSparesShortenRecovery(t *testing.T) {
	p := regime(t, catalog.RecoveryAutomatic, Params{Nodes: 2048, JobLength: 30 * 24 * time.Hour, NodeMTBI: nodeMTBI(t, "a3-mega"), CheckpointPause: 10 * time.Second})
	none, _ := Simulate(SimConfig{Params: p, Replications: 10, Seed: 5})
	p.Spares = 8
	some, _ := Simulate(SimConfig{Params: p, Replications: 10, Seed: 5})
	if some.Lost.SpareWait >= none.Lost.SpareWait/20 || some.Goodput.Mean <= none.Goodput.Mean {
		t.Errorf("8 spares: wait %v goodput %.4f; none: wait %v goodput %.4f", some.Lost.SpareWait, some.Goodput.Mean, none.Lost.SpareWait, none.Goodput.Mean)
	}
}

func TestErlangB(t *testing.T) {
	// B(0, a) = 1; B(1, a) = a/(1+a); B(2, 1) = (1/2)/(1 + 1 + 1/2) = 0.2.
	for _, tc := range []struct {
		s    int
		a, w float64
	}{{0, 3, 1}, {1, 1, 0.5}, {1, 3, 0.75}, {2, 1, 0.2}} {
		if got := ErlangB(tc.s, tc.a); math.Abs(got-tc.w) > 1e-12 {
			t.Errorf("ErlangB(%d, %v) = %v, want %v", tc.s, tc.a, got, tc.w)
		}
	}
}
