package recipes

// Modes a recipe runs in.
const (
	ModePretrain          = "pretrain"
	ModeContinuedPretrain = "continued_pretrain"
	ModeSFT               = "sft"
	ModeRL                = "rl"
)

// ProfileCPU is the machine profile of the CPU recipe: any machine type
// without GPUs (catalog.MachineType.HasGPU() == false).
const ProfileCPU = "cpu"

// Job is one fully resolved training run: what hypercompute_recipe_job
// writes as JSON under the controller metadata key JobKey(Name), and what the
// controller's agent renders (Render) and submits. Every default is filled
// in by the provider at plan, so the agent never guesses.
type Job struct {
	Schema    int    `json:"schema"`
	Name      string `json:"name"`
	Cluster   string `json:"cluster"`
	Partition string `json:"partition"`
	// Model, Size and Mode name the recipe (Lookup); Profile is the
	// partition's machine profile (catalog Profile, or ProfileCPU).
	Model   string `json:"model"`
	Size    string `json:"size"`
	Mode    string `json:"mode"`
	Profile string `json:"profile"`
	// Nodes the job runs on; TasksPerNode is one per GPU on GPU
	// profiles and 1 on CPU.
	Nodes        int `json:"nodes"`
	TasksPerNode int `json:"tasks_per_node"`
	// MaxSteps: training stops after this many optimizer steps.
	MaxSteps int `json:"max_steps"`
	// Hyperparameters override the recipe's (learning_rate, micro_batch,
	// global_batch, seq_length, ...), as strings.
	Hyperparameters map[string]string `json:"hyperparameters,omitempty"`
	// ContainerImage overrides the recipe's container (GPU recipes).
	ContainerImage string `json:"container_image,omitempty"`
	// Precision overrides the recipe's (bf16, fp8); empty: the recipe's.
	// It must be one the profile trains in (catalog.TrainingPrecisions),
	// and only Megatron-Bridge recipes switch precision by a flag.
	Precision string `json:"precision,omitempty"`
	// Env is extra environment for every task.
	Env map[string]string `json:"env,omitempty"`

	Checkpoint Checkpoint `json:"checkpoint"`
	// Restart is what the batch script does when the training step fails.
	Restart RestartPolicy `json:"restart"`
	// RunDir holds the job's script, logs, metrics and Progress file; on
	// storage every node of the partition mounts.
	RunDir string `json:"run_dir"`
	// TensorBoardDir receives scalars (TensorBoard event files, or
	// metrics.jsonl where TensorBoard is absent).
	TensorBoardDir string `json:"tensorboard_dir,omitempty"`
	// ExportPath receives the final model; empty: none.
	ExportPath string `json:"export_path,omitempty"`
	// TimeLimit in minutes (Slurm --time); 0: the partition's.
	TimeLimit int `json:"time_limit,omitempty"`
	// SignalLead: seconds before the time limit the job gets SIGUSR1
	// (--signal=B:USR1@SignalLead) to checkpoint.
	SignalLead int `json:"signal_lead"`
	// Generation changes when the spec changes, so a replaced job is told
	// apart from the one it replaces.
	Generation string `json:"generation"`
	// Custom is the user's own program instead of a catalog recipe: Model,
	// Size, Mode, Hyperparameters and Precision are then empty, and MaxSteps
	// is optional (0: the program decides).
	Custom *Custom `json:"custom,omitempty"`
}

// Custom is a training program the user brings, run in the same batch
// script as the recipes (checkpoint directory, requeue, restart policy,
// USR1 before the time limit, progress and goodput). Exactly one of Command
// and Script is set. The program learns everything through the environment
// (CustomEnv) and reports progress through the helper module the script
// ships (CustomHelperModule) or by writing ProgressFile itself.
type Custom struct {
	// Command is a shell command line (bash -c) each task runs.
	Command string `json:"command,omitempty"`
	// Script is a program's text, written to the run directory and
	// executed: its #! line names the interpreter.
	Script string `json:"script,omitempty"`
	// GPUsPerNode the job asks Slurm for on each node; one task per GPU
	// (one per node when 0). Only on GPU profiles.
	GPUsPerNode int `json:"gpus_per_node,omitempty"`
	// FLOPsPerStep is the model FLOPs of one optimizer step over all ranks,
	// when the user declares it: the helper then reports MFU against
	// PeakTFLOPS.
	FLOPsPerStep float64 `json:"flops_per_step,omitempty"`
	// PeakTFLOPS of the job's GPUs together (the catalog's dense bf16
	// datasheet figure × GPUs); 0 on CPU, where the helper measures a
	// matmul rate itself when the program uses PyTorch.
	PeakTFLOPS float64 `json:"peak_tflops,omitempty"`
}

// Checkpoint says where and how often a job checkpoints.
type Checkpoint struct {
	Dir string `json:"dir"`
	// IntervalSeconds > 0 is a fixed interval; 0 with Auto is the
	// Young/Daly interval √(2·C·M), recomputed after each checkpoint from
	// the measured cost C and MTBFSeconds.
	// The CPU trainer applies both, timing its own steps. GPU recipes
	// launch Megatron-Bridge, NeMo or NeMo-RL, which count checkpoint
	// intervals in steps: the interval (for auto, √(2·C·M) with the planned
	// CostSeconds) is divided by the recipe's expected step time
	// (ExpectedStepSeconds); an explicit save_interval_steps hyperparameter
	// wins over both.
	IntervalSeconds int  `json:"interval_seconds,omitempty"`
	Auto            bool `json:"auto,omitempty"`
	// CostSeconds is the checkpoint cost C estimated at plan: the recipe's
	// checkpoint size over the write bandwidth of the storage the
	// directory is on; 0 when that storage has no bandwidth figure.
	CostSeconds float64 `json:"cost_seconds,omitempty"`
	// MTBFSeconds is the partition's expected time between interruptions
	// for the job's node count (catalog figures per family × nodes).
	MTBFSeconds float64 `json:"mtbf_seconds,omitempty"`
	KeepLast    int     `json:"keep_last"`
	// ResumeFrom is a checkpoint directory to start from (continued
	// pretraining, SFT); the job's own newest checkpoint wins over it.
	ResumeFrom string `json:"resume_from,omitempty"`
}

// Progress is what a running recipe writes (atomically, as JSON) to
// ProgressFile in its RunDir after every logged step and checkpoint; the
// controller's agent reads it and reports it to the provider.
type Progress struct {
	Step                 int     `json:"step"`
	MaxSteps             int     `json:"max_steps"`
	FirstLoss            float64 `json:"first_loss"`
	LastLoss             float64 `json:"last_loss"`
	LastCheckpointStep   int     `json:"last_checkpoint_step"`
	LastCheckpointTime   string  `json:"last_checkpoint_time,omitempty"` // RFC 3339
	CheckpointCostSecond float64 `json:"checkpoint_cost_seconds"`
	IntervalSeconds      float64 `json:"interval_seconds"`
	Checkpoints          int     `json:"checkpoints"`
	// Restarts counts starts after the first (requeue, node failure).
	Restarts int `json:"restarts"`
	// LostSeconds is training time redone after restarts: the time since
	// the last checkpoint when each earlier run stopped.
	LostSeconds float64 `json:"lost_seconds"`
	// SlurmJobID is the Slurm job that wrote the file last.
	SlurmJobID string `json:"slurm_job_id,omitempty"`
	// LostByJob splits lost work by the Slurm job whose run it was: a
	// restart charges what it redoes to the job that stopped, which is
	// another job when a new submission resumes a failed one. Measured
	// goodput reads it per job (sacct's job id), so a job is never charged
	// with an earlier job's loss. Kept across generations: keys are unique.
	LostByJob map[string]float64 `json:"lost_by_job,omitempty"`
	// StartupSeconds: from the trainer's process start to the first step
	// of the current run (imports, rendezvous, loading a checkpoint).
	StartupSeconds float64 `json:"startup_seconds,omitempty"`
	// Generation of the job that wrote the file: a restart only continues
	// the counts of its own generation.
	Generation string `json:"generation,omitempty"`
	// StartedAt is when the current run started (RFC 3339).
	StartedAt string `json:"started_at,omitempty"`
	// MFU is program goodput: model FLOPs (FLOPsPerToken × tokens) over
	// step time over the peak, as a step-time-weighted mean over
	// TrainSeconds, the step time summed over this generation's runs. The
	// CPU trainer's peak is PeakTFLOPS, its ranks' matmul rate measured once
	// at start.
	MFU          float64 `json:"mfu,omitempty"`
	TrainSeconds float64 `json:"train_seconds,omitempty"`
	PeakTFLOPS   float64 `json:"peak_tflops,omitempty"`
	// History is the loss curve of this generation's logged steps (the CPU trainer's), and
	// CheckpointSteps the steps its checkpoints were written at, for the goodput report: at most
	// ProgressHistoryMax each (older points thinned out, older checkpoints dropped). A restart
	// keeps the points up to the step it resumes from.
	History         []ProgressPoint `json:"history,omitempty"`
	CheckpointSteps []int           `json:"checkpoint_steps,omitempty"`
	// Finished: the run reached max_steps (and exported the model).
	Finished  bool   `json:"finished,omitempty"`
	UpdatedAt string `json:"updated_at"`
}

// ProgressPoint is one logged step of Progress.History.
type ProgressPoint struct {
	Step int     `json:"step"`
	Loss float64 `json:"loss"`
	Time string  `json:"time,omitempty"` // RFC 3339
}

// ProgressHistoryMax bounds Progress.History and CheckpointSteps (the trainer's HISTORY_MAX).
const ProgressHistoryMax = 256

// RestartPolicy restarts a failed training step (a rank killed by an OOM,
// a segfault or an NCCL abort ends the whole step: srun --kill-on-bad-exit)
// inside the job's allocation, from the newest complete checkpoint, as
// HyperPod's auto-resume does: at most MaxRestarts times per job, waiting
// BackoffSeconds before the first restart and twice as long before each next
// one. A step that failed without progress since it started (no new
// checkpoint, no step advanced in the Progress file) is not restarted: a bad
// script or bad data fails the same way every time. Each restart is appended
// to RestartsFile in the RunDir.
type RestartPolicy struct {
	MaxRestarts    int `json:"max_restarts"`
	BackoffSeconds int `json:"backoff_seconds"`
}

// RestartsFile lists a job's automatic restarts, one JSON object a line
// ({"time","job_id","attempt","exit_code","step"}), in its RunDir.
const RestartsFile = "restarts.jsonl"

// ProgressFile is the name of the Progress file in a job's RunDir.
const ProgressFile = "progress.json"

// Script is a rendered job: the batch script and how to submit it.
type Script struct {
	// Body is the complete batch script (#!/bin/bash, #SBATCH lines,
	// environment, srun launch); self-contained: it writes any program it
	// runs (the CPU trainer) into RunDir itself.
	Body string
	// Sbatch are the submission flags the script's #SBATCH lines carry,
	// also given separately for slurmrestd (--job-name, --partition,
	// --nodes, --ntasks-per-node, --signal, --requeue, --output, ...).
	Sbatch []string
	// NeedsBatchSignal: the job relies on a batch-only signal
	// (B:USR1@N) that slurmrestd v0.0.38 refuses; submit with sbatch.
	NeedsBatchSignal bool
	// MakeDirs must exist before submission (the submitter creates them,
	// mode 0755): Slurm opens --output in RunDir before the script runs,
	// and a missing directory fails the job at once.
	MakeDirs []string
}
