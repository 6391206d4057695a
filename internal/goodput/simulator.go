package goodput

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
)

// SimConfig runs the fleet simulator: Replications independent runs of the
// job, seeded so a run is reproducible.
type SimConfig struct {
	Params
	Replications int
	Seed         uint64
}

// Estimate is a mean over replications with a 95% confidence interval
// (Student's t).
type Estimate struct {
	Mean, Low, High float64
}

// SimResult is what the simulator measured.
type SimResult struct {
	Replications  int
	Goodput       Estimate
	Interruptions Estimate
	// Lost per cause, the mean over replications.
	Lost Lost
	// Waits counts interruptions that found no free spare, over all replications.
	Waits, Failures int
}

// Simulate runs the discrete-event model. Each replication follows the job
// through wall time: it computes and checkpoints in cycles; the next node
// failure comes after an exponential time at rate nodes/node-MTBI of running
// time (the first of N independent exponential node lifetimes, and
// memoryless, so redrawing it when the job resumes is exact); an
// interruption loses the work since the last durable checkpoint and stops
// the job for detection, then a swap if a spare is free or the wait for the
// first repaired node, then a restart. A detected node goes to repair (an
// exponential time; repairs run in parallel and return nodes to the pool).
func Simulate(cfg SimConfig) (SimResult, error) {
	if err := cfg.Validate(); err != nil {
		return SimResult{}, err
	}
	if cfg.Replications < 2 {
		return SimResult{}, fmt.Errorf("replications must be at least 2 for a confidence interval, got %d", cfg.Replications)
	}
	var goodput, interruptions []float64
	var res SimResult
	var lost [4]float64
	for i := range cfg.Replications {
		r := replicate(cfg.Params, rand.New(rand.NewPCG(cfg.Seed, uint64(i))))
		W := secs(cfg.JobLength)
		goodput = append(goodput, r.useful/W)
		interruptions = append(interruptions, float64(r.failures))
		lost[0] += r.checkpoint
		lost[1] += r.rework
		lost[2] += r.recovery
		lost[3] += r.wait
		res.Waits += r.waits
		res.Failures += r.failures
	}
	n := float64(cfg.Replications)
	res.Replications = cfg.Replications
	res.Goodput = estimate(goodput)
	res.Interruptions = estimate(interruptions)
	res.Lost = Lost{
		Checkpointing: seconds(lost[0] / n), Rework: seconds(lost[1] / n),
		Recovery: seconds(lost[2] / n), SpareWait: seconds(lost[3] / n),
	}
	return res, nil
}

// run is one replication's wall-time accounting, in seconds; its parts add
// up to the job length.
type run struct {
	useful, checkpoint, rework, recovery, wait float64
	failures, waits                            int
}

func replicate(p Params, rng *rand.Rand) run {
	var r run
	W := secs(p.JobLength)
	T := secs(p.interval())
	C := secs(p.CheckpointPause)
	persist := secs(p.CheckpointPersist)
	cycle := T + C
	rate := float64(p.Nodes) / secs(p.NodeMTBI)
	exp := func(mean float64) float64 {
		if mean <= 0 {
			return 0
		}
		return rng.ExpFloat64() * mean
	}
	free := p.Spares
	var repairs timeHeap // completion times of nodes in repair
	returned := func(now float64) {
		for repairs.Len() > 0 && repairs[0] <= now {
			heap.Pop(&repairs)
			free++
		}
	}

	t := 0.0
	for t < W {
		// The job runs from its last durable checkpoint, cycle phase 0.
		f := rng.ExpFloat64() / rate
		if t+f >= W {
			e := W - t
			k := math.Floor(e / cycle)
			rest := e - k*cycle
			r.useful += k*T + math.Min(rest, T)
			r.checkpoint += k*C + math.Max(rest-T, 0)
			break
		}
		// Checkpoint k (k = 1, 2, ...) is durable at k·cycle + persist.
		durable := 0.0
		if f >= cycle+persist {
			durable = math.Floor((f - persist) / cycle)
		}
		r.useful += durable * T
		r.checkpoint += durable * C
		r.rework += f - durable*cycle
		r.failures++
		// Down time, clipped at the end of the job.
		now := t + f
		spend := func(d float64, into *float64) {
			d = math.Min(d, W-now)
			*into += d
			now += d
		}
		spend(secs(p.Detect), &r.recovery)
		// Once detected, the node goes to repair.
		returned(now)
		heap.Push(&repairs, now+exp(secs(p.Repair)))
		if free > 0 {
			free--
			spend(secs(p.Swap), &r.recovery)
		} else {
			// No spare: the first node back from repair takes the place.
			r.waits++
			back := heap.Pop(&repairs).(float64)
			spend(math.Max(back-now, 0), &r.wait)
		}
		spend(secs(p.Restart), &r.recovery)
		t = now
	}
	return r
}

type timeHeap []float64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// estimate is the sample mean with a 95% Student-t confidence interval.
func estimate(xs []float64) Estimate {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := tQuantile975(len(xs)-1) * math.Sqrt(ss/(n-1)/n)
	return Estimate{Mean: mean, Low: mean - half, High: mean + half}
}

// tQuantile975 is Student's t 97.5% quantile for df degrees of freedom
// (standard tables); past 30 the normal 1.96 is within 2%.
func tQuantile975(df int) float64 {
	table := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

// Covers reports whether x lies within the interval widened by tol on each side.
func (e Estimate) Covers(x, tol float64) bool { return x >= e.Low-tol && x <= e.High+tol }
