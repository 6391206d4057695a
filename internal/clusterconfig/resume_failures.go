package clusterconfig

import (
	"encoding/json"
	"fmt"
	"time"
)

// ResumeFailedReason starts the Slurm reason of a node the ResumeProgram could not bring up; the
// cloud's error follows. The agent sets the node DOWN with it at once, so slurmctld requeues the
// node's jobs instead of waiting ResumeTimeout for a VM that was never created.
const ResumeFailedReason = "resume failed: "

// GuestAttrFailedPrefix + partition name is the controller guest attribute listing the
// partition's nodes Slurm holds DOWN after a failed resume (a JSON array of NodeFailure, sorted by
// node, as many as fit a guest attribute): set DOWN by the ResumeProgram with the cloud's error,
// or by slurmctld at ResumeTimeout. It is deleted when there are none: it follows Slurm, so a
// node returned to service leaves it.
const GuestAttrFailedPrefix = "failed-"

// FailedAttr is the guest attribute key of a partition's resume failures.
func FailedAttr(partition string) string { return GuestAttrFailedPrefix + partition }

// NodeFailure is one node whose resume failed, as Slurm records it.
type NodeFailure struct {
	Node string `json:"node"`
	// Reason is Slurm's reason for the node: ResumeFailedReason and the cloud's error.
	Reason string `json:"reason"`
	// Time is when Slurm recorded the reason, RFC 3339 in UTC.
	Time string `json:"time"`
}

// ParseFailures reads a failed-<partition> report; "" is none.
func ParseFailures(v string) ([]NodeFailure, error) {
	if v == "" {
		return nil, nil
	}
	var out []NodeFailure
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("the controller's %s… report does not decode: %w", GuestAttrFailedPrefix, err)
	}
	return out, nil
}

// ResumeRetry is how long a node of p whose resume failed stays DOWN, powered down, before the
// controller's agent returns it to service; zero means never.
func (p Partition) ResumeRetry() time.Duration {
	if p.ResumeRetryAfter == nil {
		return DefaultResumeRetryAfter * time.Second
	}
	return time.Duration(*p.ResumeRetryAfter) * time.Second
}
