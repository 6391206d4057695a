package goodput

import (
	"math"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// regime fills the recovery times of a catalog regime into p.
func regime(t testing.TB, name string, p Params) Params {
	t.Helper()
	r, ok := catalog.RecoveryFor(name)
	if !ok {
		t.Fatalf("no recovery regime %q", name)
	}
	p.Detect, p.Swap, p.Repair, p.Restart = r.Detect, r.Swap, r.Repair, r.Restart
	return p
}

func nodeMTBI(t testing.TB, profile string) time.Duration {
	t.Helper()
	m, err := catalog.NodeMTBI(profile)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// agreementCases span small and large jobs, sync and async checkpoints,
// manual and automatic recovery, with and without enough spares.
func agreementCases(t testing.TB) []struct {
	name string
	p    Params
} {
	day := 24 * time.Hour
	h100 := nodeMTBI(t, "a3-mega")
	return []struct {
		name string
		p    Params
	}{
		{"1024 GPUs manual hourly sync", regime(t, catalog.RecoveryManual, Params{
			Nodes: 128, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 3 * time.Minute, Interval: time.Hour})},
		{"1024 GPUs automatic async 2 spares", regime(t, catalog.RecoveryAutomatic, Params{
			Nodes: 128, Spares: 2, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 5 * time.Second, CheckpointPersist: 3 * time.Minute})},
		{"16384 GPUs manual hourly sync", regime(t, catalog.RecoveryManual, Params{
			Nodes: 2048, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 3 * time.Minute, Interval: time.Hour})},
		{"16384 GPUs automatic async 8 spares", regime(t, catalog.RecoveryAutomatic, Params{
			Nodes: 2048, Spares: 8, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 5 * time.Second, CheckpointPersist: 3 * time.Minute})},
		{"16384 GPUs automatic no spares", regime(t, catalog.RecoveryAutomatic, Params{
			Nodes: 2048, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 30 * time.Second})},
		{"16384 GPUs automatic one spare, often short", regime(t, catalog.RecoveryAutomatic, Params{
			Nodes: 2048, Spares: 1, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 30 * time.Second})},
		{"pessimistic MTBF 512 nodes", regime(t, catalog.RecoveryAutomatic, Params{
			Nodes: 512, Spares: 4, JobLength: 14 * day,
			NodeMTBI:        time.Duration(catalog.MetaRSCGPUMTBIHours / 8 * float64(time.Hour)),
			CheckpointPause: time.Minute})},
		{"slow bucket checkpoints 10 min", regime(t, catalog.RecoveryManual, Params{
			Nodes: 256, JobLength: 30 * day, NodeMTBI: h100, CheckpointPause: 10 * time.Minute})},
	}
}

// The closed form and the simulator agree: over 40 replications of each
// case the planner's goodput lies within the simulator's 95% confidence
// interval widened by 0.5 percentage points, and so do its expected
// interruptions (widened by 3%). The widening covers the planner's
// first-order approximations (uniform failure position in a cycle, no
// repairs during down time), which the table shows are small.
func TestPlannerAgreesWithSimulator(t *testing.T) {
	for _, tc := range agreementCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Compute(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Simulate(SimConfig{Params: tc.p, Replications: 40, Seed: 14})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("plan %.4f  sim %.4f [%.4f, %.4f]  interruptions plan %.1f sim %.1f  no-spare plan %.3f sim %.3f",
				plan.Goodput, sim.Goodput.Mean, sim.Goodput.Low, sim.Goodput.High,
				plan.Interruptions, sim.Interruptions.Mean, plan.NoSpareProbability, float64(sim.Waits)/float64(max(sim.Failures, 1)))
			if !sim.Goodput.Covers(plan.Goodput, 0.005) {
				t.Errorf("planner goodput %.4f outside simulator's %.4f [%.4f, %.4f] ± 0.005",
					plan.Goodput, sim.Goodput.Mean, sim.Goodput.Low, sim.Goodput.High)
			}
			if !sim.Interruptions.Covers(plan.Interruptions, 0.03*plan.Interruptions) {
				t.Errorf("planner interruptions %.1f outside simulator's %.1f [%.1f, %.1f] ± 3%%",
					plan.Interruptions, sim.Interruptions.Mean, sim.Interruptions.Low, sim.Interruptions.High)
			}
			// Each cause agrees to within 0.5% of the job length.
			tol := 0.005 * tc.p.JobLength.Seconds()
			for _, c := range []struct {
				name      string
				plan, sim time.Duration
			}{
				{"checkpointing", plan.Lost.Checkpointing, sim.Lost.Checkpointing},
				{"rework", plan.Lost.Rework, sim.Lost.Rework},
				{"recovery", plan.Lost.Recovery, sim.Lost.Recovery},
				{"spare wait", plan.Lost.SpareWait, sim.Lost.SpareWait},
			} {
				if math.Abs(c.plan.Seconds()-c.sim.Seconds()) > tol {
					t.Errorf("%s: planner %v, simulator %v", c.name, c.plan.Round(time.Minute), c.sim.Round(time.Minute))
				}
			}
		})
	}
}
