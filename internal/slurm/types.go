package slurm

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultPath is the PATH a job gets when JobSpec.Env is empty: slurmrestd
// refuses a submission without any environment ("environment must be set").
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// JobSpec describes one batch job, independent of the REST API version.
type JobSpec struct {
	Name      string
	Partition string // empty: the cluster's default partition
	// Script is the batch script; it must start with "#!". slurmrestd does
	// not read #SBATCH lines from it: every option goes in the fields below.
	Script       string
	Nodes        int           // 0: Slurm's default (1)
	TasksPerNode int           // 0: unset
	CPUsPerTask  int           // 0: unset
	GPUsPerNode  int           // 0: none
	Constraints  string        // node features, sbatch --constraint syntax
	TimeLimit    time.Duration // 0: the partition's limit; rounded up to whole minutes
	WorkDir      string        // empty: /tmp
	StdOut       string        // Slurm filename pattern (%j = job id)
	StdErr       string
	Env          map[string]string // empty: PATH=DefaultPath
	Requeue      bool
	// Signal is the warning signal in sbatch --signal syntax: "[B:]SIG[@SECONDS]",
	// e.g. "B:USR1@120" (only the batch shell gets SIGUSR1 120 s before the
	// time limit). v0.0.38 cannot do the B: form.
	Signal string
	// Dependency in sbatch syntax, e.g. "afterok:12:13" or "singleton".
	Dependency string
}

// Normalised job states (Job.State). A job's base state is one of the first
// group; a flag from the second group takes precedence the way squeue shows it.
const (
	JobPending     = "PENDING"
	JobRunning     = "RUNNING"
	JobSuspended   = "SUSPENDED"
	JobCompleted   = "COMPLETED"
	JobCancelled   = "CANCELLED"
	JobFailed      = "FAILED"
	JobTimeout     = "TIMEOUT"
	JobNodeFail    = "NODE_FAIL"
	JobPreempted   = "PREEMPTED"
	JobBootFail    = "BOOT_FAIL"
	JobDeadline    = "DEADLINE"
	JobOutOfMemory = "OUT_OF_MEMORY"

	JobCompleting  = "COMPLETING"  // finished, epilog or step cleanup still running
	JobConfiguring = "CONFIGURING" // allocated, nodes still booting (cloud nodes)
	JobRequeued    = "REQUEUED"    // going back to PENDING (REQUEUE_HOLD, REQUEUE_FED too)
	JobResizing    = "RESIZING"
	JobStopped     = "STOPPED"
	JobSpecialExit = "SPECIAL_EXIT"
	JobStageOut    = "STAGE_OUT"
)

var jobBaseStates = []string{JobPending, JobRunning, JobSuspended, JobCompleted, JobCancelled,
	JobFailed, JobTimeout, JobNodeFail, JobPreempted, JobBootFail, JobDeadline, JobOutOfMemory}

var jobTerminalStates = []string{JobCompleted, JobCancelled, JobFailed, JobTimeout, JobNodeFail,
	JobPreempted, JobBootFail, JobDeadline, JobOutOfMemory}

// Job is one job as slurmctld reports it.
type Job struct {
	ID        int
	Name      string
	Partition string
	// State is the normalised state (Job* constants); Flags holds every
	// other state word Slurm reported (COMPLETING, REQUEUED, ...).
	State  string
	Flags  []string
	Reason string // Slurm's state_reason: "None", "Resources", "NonZeroExitCode", ...
	// ExitCode and ExitSignal describe the batch script's end; meaningful
	// once Done(). A job killed by a signal has ExitCode 0 and ExitSignal set.
	ExitCode   int
	ExitSignal int
	Nodes      string // Slurm hostlist expression, e.g. "a3-[0-3]"
	// Times are zero when Slurm has not set them. EndTime of a running job is
	// its expected end (start + time limit).
	SubmitTime   time.Time
	StartTime    time.Time
	EndTime      time.Time
	TimeLimit    time.Duration // 0: none
	StdOut       string
	StdErr       string
	RestartCount int // how often the job was requeued
}

// Done reports whether the job reached a final state and holds no nodes.
func (j Job) Done() bool {
	return slices.Contains(jobTerminalStates, j.State)
}

// HasFlag reports whether Slurm listed flag among the job's state words.
func (j Job) HasFlag(flag string) bool {
	return slices.Contains(j.Flags, strings.ToUpper(flag)) || j.State == strings.ToUpper(flag)
}

// normalizeJobState turns the state words of any API version (one string in
// v0.0.38/39, a list from v0.0.40) into State and Flags.
func normalizeJobState(words []string) (state string, flags []string) {
	base := ""
	for _, w := range words {
		w = strings.ToUpper(strings.TrimSpace(w))
		if w == "" {
			continue
		}
		if base == "" && slices.Contains(jobBaseStates, w) {
			base = w
			continue
		}
		flags = append(flags, w)
	}
	for _, f := range flags {
		switch f {
		case JobCompleting, JobConfiguring, JobResizing, JobStopped, JobSpecialExit, JobStageOut:
			return f, flags
		case JobRequeued, "REQUEUE_HOLD", "REQUEUE_FED":
			return JobRequeued, flags
		}
	}
	if base == "" {
		if len(flags) > 0 {
			return flags[0], flags[1:]
		}
		return "UNKNOWN", nil
	}
	return base, flags
}

// Base node states (Node.State). Everything else Slurm reports is a flag.
const (
	NodeIdle      = "IDLE"
	NodeAllocated = "ALLOCATED"
	NodeMixed     = "MIXED"
	NodeDown      = "DOWN"
	NodeError     = "ERROR"
	NodeFuture    = "FUTURE"
	NodeUnknown   = "UNKNOWN"
)

// Common node flags (Node.Flags).
const (
	FlagDrain         = "DRAIN"
	FlagCloud         = "CLOUD"
	FlagPoweredDown   = "POWERED_DOWN"
	FlagPoweringUp    = "POWERING_UP"
	FlagPoweringDown  = "POWERING_DOWN"
	FlagNotResponding = "NOT_RESPONDING"
	FlagCompleting    = "COMPLETING"
	FlagFail          = "FAIL"
	FlagReboot        = "REBOOT_REQUESTED"
)

var nodeBaseStates = []string{NodeIdle, NodeAllocated, NodeMixed, NodeDown, NodeError, NodeFuture, NodeUnknown}

// Node is one Slurm node.
type Node struct {
	Name       string
	State      string   // base state, Node* constants
	Flags      []string // DRAIN, CLOUD, POWERED_DOWN, NOT_RESPONDING, ...
	Reason     string
	Partitions []string
	CPUs       int
	AllocCPUs  int
	MemoryMB   int
	Gres       string   // e.g. "gpu:h100:8"
	Features   []string // available features
	Address    string
	Hostname   string
}

// Has reports whether the node has the state or flag (case-insensitive).
func (n Node) Has(stateOrFlag string) bool {
	s := strings.ToUpper(stateOrFlag)
	return n.State == s || slices.Contains(n.Flags, s)
}

// Drained reports whether the node is drained or draining.
func (n Node) Drained() bool { return n.Has(FlagDrain) }

func normalizeNodeState(words []string) (state string, flags []string) {
	for _, w := range words {
		w = strings.ToUpper(strings.TrimSpace(w))
		if w == "" {
			continue
		}
		if state == "" && slices.Contains(nodeBaseStates, w) {
			state = w
			continue
		}
		if !slices.Contains(flags, w) {
			flags = append(flags, w)
		}
	}
	if state == "" {
		state = NodeUnknown
	}
	return state, flags
}

// Partition is one Slurm partition.
type Partition struct {
	Name       string
	Nodes      string // hostlist expression
	State      string // UP, DOWN, DRAIN, INACTIVE; empty where the API does not say (v0.0.39)
	TotalNodes int
	TotalCPUs  int
	MaxTime    time.Duration // 0: unlimited
}

// NodeUpdate changes a node's state. State is a Slurm node state word:
// DRAIN, RESUME, UNDRAIN, DOWN, FAIL, POWER_DOWN, POWER_UP, POWER_DOWN_ASAP,
// POWER_DOWN_FORCE, IDLE. DRAIN, DOWN and FAIL need a Reason.
type NodeUpdate struct {
	State  string
	Reason string
}

func (u NodeUpdate) validate() (string, error) {
	state := strings.ToUpper(strings.TrimSpace(u.State))
	switch state {
	case "DRAIN", "DOWN", "FAIL":
		if strings.TrimSpace(u.Reason) == "" {
			return "", fmt.Errorf("slurm: node state %s needs a reason", state)
		}
	case "RESUME", "UNDRAIN", "POWER_DOWN", "POWER_UP", "POWER_DOWN_ASAP", "POWER_DOWN_FORCE", "IDLE":
	case "":
		return "", fmt.Errorf("slurm: node update without a state")
	default:
		return "", fmt.Errorf("slurm: unknown node state %q", u.State)
	}
	return state, nil
}

// PingResult is what GET /ping says about the controllers.
type PingResult struct {
	APIVersion   string // the plugin answering, e.g. "v0.0.38"
	SlurmRelease string // e.g. "22.05.8"
	Controllers  []Controller
}

// Controller is one slurmctld as seen by slurmrestd.
type Controller struct {
	Hostname   string
	Mode       string // primary, backup
	Responding bool
}
