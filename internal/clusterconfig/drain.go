package clusterconfig

import (
	"fmt"
	"strings"
)

// Drain is how a scale-down that must not kill running jobs reaches Slurm.
// The provider writes the partition with its new counts and Drain naming
// the removed nodes, which slurm.conf keeps listing (Partition.SlurmStaticNames,
// SlurmDynamicNames) while they drain; the
// controller's agent drains them (scontrol update state=DRAIN) and reports,
// in the guest attribute DrainedAttr(partition), which of them are drained
// and run no job any more. The provider deletes those VMs only then, and
// writes the partition again without Drain and without the removed nodes.
//
// ID changes with every scale-down, so a report left over from an earlier
// one is never taken for this one's.
type Drain struct {
	ID string `json:"id"`
	// Nodes is a Slurm hostlist of the nodes to drain, e.g. "c-a3-[2-3]".
	Nodes string `json:"nodes"`
	// Reason is the reason Slurm shows for the drain; empty means DrainReason (roll.go).
	Reason string `json:"reason,omitempty"`
	// Requeue has the agent requeue the jobs still running on the nodes, so they restart
	// elsewhere and the nodes empty now (a rolling replacement past its job timeout).
	Requeue bool `json:"requeue,omitempty"`
}

// GuestAttrDrainedPrefix + partition name is the controller guest attribute
// (namespace GuestAttributeNamespace) the agent writes for Partition.Drain:
// "<drain id> <hostlist of drained idle nodes>" (FormatDrained).
const GuestAttrDrainedPrefix = "drained-"

// DrainReason is the reason the agent gives Slurm for a scale-down drain.
const DrainReason = "hypercompute: partition scale-down"

// DrainedAttr is the guest attribute key of a partition's drain report.
func DrainedAttr(partition string) string { return GuestAttrDrainedPrefix + partition }

// FormatDrained renders a drain report: the drain's ID, then the hostlist
// of the nodes that are drained and idle (empty when none is yet).
func FormatDrained(id string, nodes []string) string {
	return strings.TrimSpace(id + " " + CompressHostlist(nodes))
}

// ParseDrained reads a drain report into its ID and node names.
func ParseDrained(v string) (id string, nodes []string, err error) {
	id, list, _ := strings.Cut(strings.TrimSpace(v), " ")
	if id == "" {
		return "", nil, fmt.Errorf("drain report %q has no drain id", v)
	}
	nodes, err = ExpandHostlist(strings.TrimSpace(list))
	return id, nodes, err
}
