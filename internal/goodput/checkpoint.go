package goodput

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Checkpoint describes where a job writes its checkpoints, for deriving
// their cost instead of stating it.
type Checkpoint struct {
	// SizeGiB is the whole job's checkpoint (all shards together).
	SizeGiB float64
	// Target is catalog.CheckpointLustre, CheckpointLocalSSD or CheckpointBucket.
	Target string
	// LustreThroughput (MBps per TiB) and LustreCapacityGiB size the Lustre
	// instance; only for the Lustre target.
	LustreThroughput, LustreCapacityGiB int64
	// FilestoreTier and FilestoreCapacityGiB size the Filestore instance;
	// only for the Filestore target.
	FilestoreTier        string
	FilestoreCapacityGiB int64
	// Async: training pauses only for the device-to-host copy, and the
	// write to storage happens in the background.
	Async bool
}

// CheckpointCost is what a checkpoint costs the job.
type CheckpointCost struct {
	// Pause: training stopped. Persist: after the pause, until durable.
	Pause, Persist time.Duration
	// Write is the time to write the checkpoint to its target.
	Write time.Duration
	// WriteMBps is the aggregate write throughput the job gets.
	WriteMBps float64
}

const gib = 1 << 30

// CheckpointCostFor derives the cost of a checkpoint of a job on nodes VMs
// of machineType. Lustre's aggregate throughput is its tier's MBps per TiB ×
// capacity (the catalog's tier table); a bucket and local SSD give each VM
// its own throughput for its shard (catalog.BucketWriteMBpsPerVM, the
// machine's local SSD devices). An async checkpoint pauses for each GPU's
// shard to cross PCIe (catalog.HostCopyGBpsPerGPU).
func CheckpointCostFor(machineType string, nodes int, c Checkpoint) (CheckpointCost, error) {
	mt, ok := catalog.Machine(machineType)
	if !ok {
		return CheckpointCost{}, fmt.Errorf("machine type %q is not in the catalog", machineType)
	}
	if nodes < 1 {
		return CheckpointCost{}, fmt.Errorf("nodes must be at least 1, got %d", nodes)
	}
	if !(c.SizeGiB > 0) || math.IsInf(c.SizeGiB, 0) {
		return CheckpointCost{}, fmt.Errorf("checkpoint size must be positive, got %v GiB", c.SizeGiB)
	}
	var mbps float64
	switch c.Target {
	case catalog.CheckpointLustre:
		if err := catalog.ValidateLustreCapacity(c.LustreThroughput, c.LustreCapacityGiB); err != nil {
			return CheckpointCost{}, err
		}
		mbps = float64(c.LustreThroughput) * float64(c.LustreCapacityGiB) / 1024
	case catalog.CheckpointLocalSSD:
		if mbps = mt.LocalSSDWriteMBps() * float64(nodes); mbps == 0 {
			return CheckpointCost{}, fmt.Errorf("machine type %s has no bundled local SSD to checkpoint to", machineType)
		}
	case catalog.CheckpointBucket:
		mbps = catalog.BucketWriteMBpsPerVM * float64(nodes)
	case catalog.CheckpointFilestore:
		var ok bool
		if mbps, ok = catalog.FilestoreWriteMBps(c.FilestoreTier, c.FilestoreCapacityGiB); !ok {
			return CheckpointCost{}, fmt.Errorf("Filestore tier %q at %d GiB has no published write throughput", c.FilestoreTier, c.FilestoreCapacityGiB)
		}
	default:
		return CheckpointCost{}, fmt.Errorf("checkpoint target %q is not one of %s", c.Target,
			strings.Join(append(catalog.CheckpointTargets(), catalog.CheckpointFilestore), ", "))
	}
	write := seconds(c.SizeGiB * gib / (mbps * 1e6))
	cost := CheckpointCost{Write: write, WriteMBps: mbps, Pause: write}
	if c.Async {
		if !mt.HasGPU() {
			return CheckpointCost{}, fmt.Errorf("asynchronous checkpoints copy from GPU memory; machine type %s has no GPU", machineType)
		}
		perGPU := c.SizeGiB * gib / float64(nodes*mt.GPUCount())
		cost.Pause = seconds(perGPU / (catalog.HostCopyGBpsPerGPU * 1e9))
		cost.Persist = write
	}
	return cost, nil
}

// Warnings says where a choice caps goodput. target is the checkpoint's
// storage target when known ("" otherwise).
func Warnings(p Params, plan Plan, target string) []string {
	var w []string
	W := p.JobLength.Seconds()
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / W }
	M := plan.JobMTBI
	if p.CheckpointPersist == 0 && p.CheckpointPause >= time.Minute {
		where := ""
		if target != "" {
			where = " to " + target
		}
		w = append(w, fmt.Sprintf("each synchronous checkpoint%s pauses training for %s, %.1f%% of the job in all; asynchronous checkpoints pause only for the device-to-host copy",
			where, human(p.CheckpointPause), pct(plan.Lost.Checkpointing)))
	}
	if c := p.CheckpointPause + p.CheckpointPersist; c >= M {
		w = append(w, fmt.Sprintf("a checkpoint takes %s, longer than the job's mean time between interruptions (%s): many interruptions come before it is durable", human(c), human(M)))
	}
	if p.Interval > 0 && plan.OptimalInterval > 0 {
		r := plan.Interval.Seconds() / plan.OptimalInterval.Seconds()
		if r > 2 || r < 0.5 {
			q := p
			q.Interval = 0
			msg := fmt.Sprintf("checkpoint interval %s is far from the optimum %s (Young/Daly √(2·C·M))", human(plan.Interval), human(plan.OptimalInterval))
			if best, err := Compute(q); err == nil {
				msg += fmt.Sprintf(": goodput %.2f%% there instead of %.2f%%", 100*best.Goodput, 100*plan.Goodput)
			}
			w = append(w, msg)
		}
	}
	if p.CheckpointPersist > 0 && p.Interval > 0 && p.Interval < p.CheckpointPersist {
		w = append(w, fmt.Sprintf("checkpoint interval %s is shorter than an asynchronous checkpoint takes to persist (%s); checkpoints are taken every %s instead", human(p.Interval), human(p.CheckpointPersist), human(plan.Interval)))
	}
	if plan.NoSpareProbability > 0.05 && p.Repair > p.Swap {
		w = append(w, fmt.Sprintf("%.0f%% of interruptions find no free spare and wait for a repair (%.1f%% of the job); more spares shorten recovery", 100*plan.NoSpareProbability, pct(plan.Lost.SpareWait)))
	}
	if target == catalog.CheckpointLocalSSD {
		w = append(w, "checkpoints on local SSD are lost with their node: restarting after a node failure needs a copy elsewhere (a peer or a bucket)")
	}
	if plan.Goodput < 0.9 {
		causes := []struct {
			name string
			d    time.Duration
		}{{"checkpointing", plan.Lost.Checkpointing}, {"rework", plan.Lost.Rework}, {"recovery", plan.Lost.Recovery}, {"waiting for spares", plan.Lost.SpareWait}}
		top := slices.MaxFunc(causes, func(a, b struct {
			name string
			d    time.Duration
		}) int {
			return cmp.Compare(a.d, b.d)
		})
		w = append(w, fmt.Sprintf("expected goodput %.1f%% is below 90%%; the largest loss is %s (%.1f%% of the job)", 100*plan.Goodput, top.name, pct(top.d)))
	}
	return w
}

// human prints a duration rounded to what a reader needs.
func human(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}
