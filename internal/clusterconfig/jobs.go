package clusterconfig

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// Recipe jobs travel like partitions: hypercompute_recipe_job writes the
// resolved recipes.Job as JSON under JobKey(name) on the controller, the
// controller's agent submits it to Slurm and reports it, as one JSON
// JobReport, in the guest attribute JobAttr(name). Removing the key asks
// the agent to cancel the job; the agent deletes the report once the job
// holds no node any more, which is what the provider's destroy waits for.
const (
	// JobKeyPrefix + job name holds a recipes.Job on the controller.
	JobKeyPrefix = "hypercompute-job-"
	// GuestAttrJobPrefix + job name is the controller's JobReport of it.
	GuestAttrJobPrefix = "job-"
)

// JobKey is the controller metadata key of a recipe job.
func JobKey(name string) string { return JobKeyPrefix + name }

// JobAttr is the guest attribute key of a recipe job's report.
func JobAttr(name string) string { return GuestAttrJobPrefix + name }

// MaxJobNameLength keeps JobKey within Compute's 128-character key limit
// with room to spare, and the name readable in squeue.
const MaxJobNameLength = 63

var jobNameRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`)

// ValidateJobName checks a recipe job's name: it is the Slurm job name and
// part of a metadata key, so letters, digits, "-" and "_", starting with a
// letter.
func ValidateJobName(name string) error {
	if len(name) > MaxJobNameLength {
		return fmt.Errorf("job name %q is %d characters long; at most %d are allowed", name, len(name), MaxJobNameLength)
	}
	if !jobNameRE.MatchString(name) {
		return fmt.Errorf("job name %q is invalid: start with a letter, then use letters, digits, \"-\" and \"_\"", name)
	}
	return nil
}

// States a JobReport carries besides Slurm's own job states (PENDING,
// RUNNING, COMPLETED, FAILED, CANCELLED, ...).
const (
	// JobStateRejected: the agent could not render or submit the job;
	// JobReport.Error holds why. It is final for that generation.
	JobStateRejected = "REJECTED"
	// JobStateCancelling: the key was removed and the agent asked Slurm to
	// cancel the job, which still holds nodes.
	JobStateCancelling = "CANCELLING"
)

// JobReport is what the controller's agent reports about one recipe job.
type JobReport struct {
	// Generation is the recipes.Job.Generation the report is about: a
	// replaced job's report is never taken for its successor's.
	Generation string `json:"generation"`
	// JobID is Slurm's job id; 0 until submitted.
	JobID int `json:"job_id,omitempty"`
	// State is Slurm's job state, or JobStateRejected/JobStateCancelling.
	State string `json:"state"`
	// Reason is Slurm's state reason ("Resources", "NonZeroExitCode").
	Reason string `json:"reason,omitempty"`
	// Error is the agent's or Slurm's text when the job could not be
	// submitted or failed.
	Error string `json:"error,omitempty"`
	// Times in RFC 3339; empty until Slurm set them.
	SubmitTime string `json:"submit_time,omitempty"`
	StartTime  string `json:"start_time,omitempty"`
	EndTime    string `json:"end_time,omitempty"`
	// Nodes is the Slurm hostlist the job runs (or ran) on.
	Nodes string `json:"nodes,omitempty"`
	// LogPath is the job's standard output file.
	LogPath string `json:"log_path,omitempty"`
	// Requeues is Slurm's restart count (requeues, node failures).
	Requeues int `json:"requeues,omitempty"`
	// AutoRestarts counts the batch script's restarts of a failed training
	// step (recipes.RestartPolicy) in this Slurm job; LastRestartCause says
	// why the last one happened.
	AutoRestarts     int    `json:"auto_restarts,omitempty"`
	LastRestartCause string `json:"last_restart_cause,omitempty"`
	// Progress is the recipe's Progress file as the job last wrote it
	// (recipes.Progress), verbatim; absent before the first step.
	Progress json.RawMessage `json:"progress,omitempty"`
}

// Final reports whether the job will not change any more: Slurm ended it
// (and will not requeue it) or the agent rejected it.
func (r JobReport) Final() bool {
	switch r.State {
	case JobStateRejected, "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
		"BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY":
		return true
	}
	return false
}

// EncodeJobReport serializes a report for JobAttr; it must fit a guest
// attribute value (4096 bytes).
func EncodeJobReport(r JobReport) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	if len(b) > MaxGuestAttributeValue {
		return "", fmt.Errorf("the report of job generation %s is %d bytes; a guest attribute holds at most %d", r.Generation, len(b), MaxGuestAttributeValue)
	}
	return string(b), nil
}

// DecodeJobReport reads a JobAttr value.
func DecodeJobReport(v string) (JobReport, error) {
	var r JobReport
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return JobReport{}, fmt.Errorf("job report is not valid JSON: %w", err)
	}
	if r.Generation == "" || r.State == "" {
		return JobReport{}, fmt.Errorf("job report %q names no generation or state", v)
	}
	return r, nil
}

// MaxGuestAttributeValue is the metadata server's limit for one guest
// attribute value.
const MaxGuestAttributeValue = 4096
