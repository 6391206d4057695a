// Package report turns a cluster's measured goodput, recipe jobs' loss curves, health events and
// partition utilisation into one self-contained HTML page: inline SVG plots drawn with
// gonum.org/v1/plot and tables with the same numbers, no external URL. The agent gathers the
// Input (hypercompute-agent report, the controller's /report); this package only draws it.
package report

import "time"

// Input is everything the page shows. Zero values are drawn as "nothing in this window".
type Input struct {
	// Cluster names the cluster in the title ("" leaves it out).
	Cluster string
	// Window is the window as the user gave it (7d); Since..Generated is the time it covers.
	Window           string
	Since, Generated time.Time
	// Days is goodput per day, oldest first; a day with no job has Jobs == 0.
	Days []Day
	// Jobs are the Slurm jobs of the window, with the loss curve of those that are recipes.
	Jobs []Job
	// Repairs and Events are the health policy's records in the window.
	Repairs []Repair
	Events  []Event
	// Partitions are the partitions jobs ran on, or that the cluster has.
	Partitions []Partition
	// Notes are said under the title: what could not be read (the health records on a login VM).
	Notes []string
}

// Day is one day's goodput in three layers: the jobs whose last attempt ended that day (or that
// still run or wait, on the last day), as hypercompute-agent goodput computes it.
type Day struct {
	Date time.Time // midnight, UTC
	Jobs int
	// Scheduling = run / (run + wait); Runtime = (run - lost) / run; Program = MFU, in [0, 1].
	Scheduling, Runtime float64
	Program             float64
	// HasProgram: some job of the day reported MFU (otherwise Program means nothing).
	HasProgram bool
}

// Job is one Slurm job (all its attempts).
type Job struct {
	ID, Name, Partition, State string
	Scheduling, Runtime        float64
	Program                    float64
	HasProgram                 bool
	// Loss is the recipe's loss by step (recipes.Progress.History), oldest first; empty for a
	// job that is no recipe or logged no step yet.
	Loss []LossPoint
	// CheckpointSteps are the steps a checkpoint was written at.
	CheckpointSteps []int
}

// LossPoint is one logged step.
type LossPoint struct {
	Step int
	Loss float64
}

// Repair is one health repair: from Start to End (zero while it runs).
type Repair struct {
	Node, Partition, Check, Action, Result string
	Start, End                             time.Time
}

// Event is a health detection or repair step at a time (clusterconfig.HealthEvent's kinds:
// detected, requeued, repair-started, repaired, repair-failed).
type Event struct {
	Time                      time.Time
	Node, Kind, Check, Detail string
}

// Partition is one partition's use of its nodes over the window.
type Partition struct {
	Name  string
	Nodes int
	// AllocatedNodeSeconds is the node time jobs held within the window; Utilisation is it over
	// Nodes × the window (0 when the node count is unknown).
	AllocatedNodeSeconds float64
	Utilisation          float64
	// Repairs and RepairNodeSeconds are the health repairs of its nodes in the window.
	Repairs           int
	RepairNodeSeconds float64
}
