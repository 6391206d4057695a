package slurm

import (
	"context"
	"fmt"
	"strings"
)

// PartitionNode is one node in one partition as sinfo shows it (a node in two partitions is
// listed twice).
type PartitionNode struct {
	NodeInfo
	Partition string
}

// NodesByPartition lists every node of every partition with its long state and reason, with one
// sinfo.
func (c CLI) NodesByPartition(ctx context.Context) ([]PartitionNode, error) {
	out, err := c.run(ctx, "sinfo", "-h", "-N", "-o", "%N|%P|%T|%E")
	if err != nil {
		return nil, err
	}
	var nodes []PartitionNode
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 4)
		if len(f) != 4 || f[0] == "" {
			continue
		}
		n := PartitionNode{NodeInfo: NodeInfo{Name: f[0], State: f[2]}, Partition: strings.TrimSuffix(f[1], "*")}
		if r := strings.TrimSpace(f[3]); r != "none" {
			n.Reason = r
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// QueuedJob is a job's partition and state as squeue lists it.
type QueuedJob struct{ Partition, State string }

// Queue lists every job slurmctld still holds (all states, so recently ended ones too), with one
// squeue.
func (c CLI) Queue(ctx context.Context) ([]QueuedJob, error) {
	out, err := c.run(ctx, "squeue", "-h", "-a", "-t", "all", "-o", "%P|%T")
	if err != nil {
		return nil, err
	}
	var jobs []QueuedJob
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p, st, ok := strings.Cut(line, "|")
		if !ok {
			return nil, fmt.Errorf("slurm: squeue printed %q where a partition and a job state belong", line)
		}
		jobs = append(jobs, QueuedJob{Partition: p, State: st})
	}
	return jobs, nil
}
