package goodput

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Params describe one job for the planner and the simulator.
type Params struct {
	// Nodes the job runs on; Spares are extra healthy nodes kept idle to
	// replace a failed one at once.
	Nodes, Spares int
	// JobLength is the wall-clock time the job holds its nodes.
	JobLength time.Duration
	// NodeMTBI is one node's mean time between interruptions.
	NodeMTBI time.Duration
	// CheckpointPause is the time training stops for each checkpoint: the
	// whole write when synchronous, the device-to-host copy when async.
	CheckpointPause time.Duration
	// CheckpointPersist is, for an asynchronous checkpoint, the time after
	// the pause until it is durable on storage (0 when synchronous). A
	// failure in that window falls back to the previous checkpoint.
	CheckpointPersist time.Duration
	// Interval is the compute time between checkpoints; 0 asks for the
	// Young/Daly optimum.
	Interval time.Duration
	// Recovery times (see catalog.Recovery): Detect, then Swap in a free
	// spare or wait for a Repair, then Restart.
	Detect, Swap, Repair, Restart time.Duration
}

// JobMTBI is the job's mean time between interruptions: any of its nodes
// failing stops it.
func (p Params) JobMTBI() time.Duration {
	if p.Nodes < 1 {
		return 0
	}
	return p.NodeMTBI / time.Duration(p.Nodes)
}

// Validate reports the first rule a Params breaks, naming the field.
func (p Params) Validate() error {
	var errs []error
	if p.Nodes < 1 {
		errs = append(errs, fmt.Errorf("nodes must be at least 1, got %d", p.Nodes))
	}
	if p.Spares < 0 {
		errs = append(errs, fmt.Errorf("spares must not be negative, got %d", p.Spares))
	}
	if p.JobLength <= 0 {
		errs = append(errs, fmt.Errorf("job length must be positive, got %v", p.JobLength))
	}
	if p.NodeMTBI <= 0 {
		errs = append(errs, fmt.Errorf("node MTBF must be positive, got %v", p.NodeMTBI))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"checkpoint pause", p.CheckpointPause}, {"checkpoint persist time", p.CheckpointPersist},
		{"checkpoint interval", p.Interval}, {"detection time", p.Detect}, {"swap time", p.Swap},
		{"repair time", p.Repair}, {"restart time", p.Restart},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %v", d.name, d.v))
		}
	}
	if p.JobLength > 0 && p.CheckpointPause+p.CheckpointPersist >= p.JobLength {
		errs = append(errs, fmt.Errorf("a checkpoint (%v) takes as long as the whole job (%v)", p.CheckpointPause+p.CheckpointPersist, p.JobLength))
	}
	if p.Interval == 0 && p.CheckpointPause == 0 {
		errs = append(errs, errors.New("with a checkpoint that pauses for no time there is no optimal interval: give the interval"))
	}
	return errors.Join(errs...)
}

// interval is the compute time between checkpoints the job will use: the
// given one or the Young/Daly optimum, and never shorter than an async
// checkpoint's persist time (the next checkpoint cannot start before the
// previous one is durable).
func (p Params) interval() time.Duration {
	t := p.Interval
	if t == 0 {
		t = YoungDaly(p.CheckpointPause.Seconds(), p.JobMTBI().Seconds())
	}
	return max(t, p.CheckpointPersist, time.Second)
}

func secs(d time.Duration) float64 { return d.Seconds() }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
