package goodput

import (
	"fmt"
	"math"
	"time"
)

// Lost is wall time lost per cause.
type Lost struct {
	Checkpointing time.Duration // training paused for checkpoints that were kept
	Rework        time.Duration // progress since the last durable checkpoint, redone after an interruption
	Recovery      time.Duration // detecting, swapping in a spare, restarting
	SpareWait     time.Duration // waiting for a repaired node because no spare was free
}

// Total is the sum of all causes.
func (l Lost) Total() time.Duration { return l.Checkpointing + l.Rework + l.Recovery + l.SpareWait }

// Plan is the planner's expectation for a job.
type Plan struct {
	JobMTBI         time.Duration
	Interval        time.Duration // the compute time between checkpoints used
	OptimalInterval time.Duration // Young/Daly √(2·C·M)
	Interruptions   float64       // expected over the job
	// Goodput is the expected share of wall time that is training progress.
	Goodput float64
	Useful  time.Duration
	Lost    Lost
	// NoSpareProbability is the chance an interruption finds no free spare.
	NoSpareProbability float64
}

// Compute is the closed-form plan. Per running second the job is
// interrupted 1/M times (M = node MTBI / nodes). A cycle is the interval T
// of compute plus the pause C; an interruption loses the time since the last
// durable checkpoint, about (T+C)/2 plus the async persist time P
// (expectedRework has the exact expectation). Each
// interruption then stops the job for detect + restart, plus a swap when a
// spare is free, or else the wait for the first of the S+1 nodes in repair
// to come back (repair/(S+1) with exponential repairs). Whether a spare is
// free is Erlang's loss formula: nodes in repair behave like calls in an
// S-line exchange with offered load a = (N/node MTBI)·repair. Wall time W
// splits into running time Rt and down time, with W = Rt·(1 + down/M); of
// the running time, the rework is lost and C/(T+C) of the rest is
// checkpointing. To first order in T/M this is Young/Daly's
// C/T + T/(2M) + R/M.
func Compute(p Params) (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	M := secs(p.JobMTBI())
	T := secs(p.interval())
	C := secs(p.CheckpointPause)
	cycle := T + C
	rework := expectedRework(M, cycle, secs(p.CheckpointPersist))

	a := float64(p.Nodes) * secs(p.Repair) / secs(p.NodeMTBI)
	noSpare := ErlangB(p.Spares, a)
	wait := secs(p.Repair) / float64(p.Spares+1)
	recovery := secs(p.Detect) + secs(p.Restart) + (1-noSpare)*secs(p.Swap)
	spareWait := noSpare * wait
	down := recovery + spareWait

	W := secs(p.JobLength)
	running := W / (1 + down/M)
	n := running / M
	kept := math.Max(running-n*rework, 0)
	progress := kept * T / cycle
	plan := Plan{
		JobMTBI:            p.JobMTBI(),
		Interval:           seconds(T),
		OptimalInterval:    YoungDaly(C, M),
		Interruptions:      n,
		Goodput:            progress / W,
		Useful:             seconds(progress),
		NoSpareProbability: noSpare,
		Lost: Lost{
			Checkpointing: seconds(kept * C / cycle),
			Rework:        seconds(math.Min(n*rework, running)),
			Recovery:      seconds(n * recovery),
			SpareWait:     seconds(n * spareWait),
		},
	}
	if !finite(plan.Goodput) {
		return Plan{}, fmt.Errorf("the plan has no finite goodput (MTBF %v, interval %v)", p.JobMTBI(), plan.Interval)
	}
	return plan, nil
}

// ErlangB is the probability that all s servers are busy under offered load
// a (Erlang's loss formula), computed by the stable recurrence
// B(0)=1, B(k) = a·B(k-1) / (k + a·B(k-1)).
func ErlangB(s int, a float64) float64 {
	b := 1.0
	for k := 1; k <= s; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// SpareChoice is the spare count that maximises goodput per node-hour paid:
// goodput × nodes / (nodes + spares), since idle spares are paid too.
type SpareChoice struct {
	Spares int
	Plan   Plan
	// PerNodeHour is goodput × nodes / (nodes + spares).
	PerNodeHour float64
}

// BestSpares tries 0..maxSpares spares and returns the cheapest best.
func BestSpares(p Params, maxSpares int) (SpareChoice, error) {
	best := SpareChoice{Spares: -1}
	for s := 0; s <= maxSpares; s++ {
		q := p
		q.Spares = s
		plan, err := Compute(q)
		if err != nil {
			return SpareChoice{}, err
		}
		v := plan.Goodput * float64(p.Nodes) / float64(p.Nodes+s)
		// Strictly better only: ties go to fewer spares.
		if best.Spares < 0 || v > best.PerNodeHour*(1+1e-9) {
			best = SpareChoice{Spares: s, Plan: plan, PerNodeHour: v}
		}
	}
	return best, nil
}

// DefaultMaxSpares bounds the spare search: a quarter of the job's nodes,
// at least 8, at most 512.
func DefaultMaxSpares(nodes int) int { return min(max(nodes/4, 8), 512) }

// expectedRework is the mean time lost per interruption: the running time
// since the last durable checkpoint. With the time to failure f exponential
// (mean M) from the restart, cycles of length P = T+C and checkpoint k
// durable at k·P + p, the loss is f − P·⌊(f−p)/P⌋⁺, whose expectation is
// M − P·e^(−p/M)·q/(1−q) with q = e^(−P/M). To first order in P/M this is
// Young/Daly's P/2 (+ p for an async checkpoint); the exact form keeps the
// planner right when the interval is not small against the MTBF (hourly
// checkpoints on a job interrupted every 3 h).
func expectedRework(M, P, p float64) float64 {
	q := math.Exp(-P / M)
	return M - P*math.Exp(-p/M)*q/-math.Expm1(-P/M)
}
