package slurm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// NodesJob is a job on some nodes as squeue lists it.
type NodesJob struct {
	ID   int
	Name string
	// Nodes is the job's whole node list (a hostlist), not only the nodes asked about.
	Nodes string
}

// BusyJobStates are the job states that keep a node busy: what a drain waits out.
var BusyJobStates = []string{"RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED"}

// JobsOn lists the jobs on any node of a hostlist that are in one of the given states (RUNNING,
// COMPLETING, ...; BusyJobStates for every state that keeps a node busy), with one squeue.
func (c CLI) JobsOn(ctx context.Context, hostlist string, states ...string) ([]NodesJob, error) {
	if err := checkHostlist(hostlist); err != nil {
		return nil, err
	}
	if len(states) == 0 {
		return nil, errors.New("slurm: JobsOn needs at least one job state")
	}
	// The name goes last: it is the one field that may hold spaces.
	out, err := c.run(ctx, "squeue", "-h", "-w", hostlist, "-t", strings.Join(states, ","), "-o", "%A %N %j")
	if err != nil {
		return nil, err
	}
	return parseNodesJobs(out)
}

// JobIDs is the ids of jobs, in their order.
func JobIDs(jobs []NodesJob) []int {
	ids := make([]int, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

func parseNodesJobs(out string) ([]NodesJob, error) {
	var jobs []NodesJob
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(strings.TrimSpace(line), " ", 3)
		id, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 2 {
			return nil, fmt.Errorf("slurm: squeue printed %q where a job id, its nodes and its name belong", line)
		}
		j := NodesJob{ID: id, Nodes: f[1]}
		if len(f) == 3 {
			j.Name = f[2]
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}
