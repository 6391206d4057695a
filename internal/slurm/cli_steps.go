package slurm

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Step is a job step srun runs outside any job: one task on each of Nodes.
type Step struct {
	Nodes []string
	// Name is the job's name in squeue and sacct.
	Name string
	// Immediate gives up when the nodes are not free within it; TimeLimit ends the step.
	Immediate, TimeLimit time.Duration
}

// RunStep runs argv as one srun step, a task per node, its output lines labelled with the task
// number (-l). The output comes back with a failure too: a step whose tasks printed their
// results may still exit non-zero.
func (c CLI) RunStep(ctx context.Context, s Step, argv ...string) (string, error) {
	if len(s.Nodes) == 0 || len(argv) == 0 {
		return "", errors.New("slurm: a step needs nodes and a command")
	}
	list := strings.Join(s.Nodes, ",")
	if err := checkHostlist(list); err != nil {
		return "", err
	}
	args := []string{"-l", "-N" + strconv.Itoa(len(s.Nodes)), "--ntasks-per-node=1", "-w", list}
	if s.Immediate > 0 {
		args = append(args, "--immediate="+strconv.Itoa(int(s.Immediate.Seconds())))
	}
	if s.TimeLimit > 0 {
		// srun's --time is whole minutes; a part of one rounds up.
		args = append(args, "--time="+strconv.Itoa(int((s.TimeLimit+time.Minute-1)/time.Minute)))
	}
	if s.Name != "" {
		args = append(args, "--job-name="+s.Name)
	}
	return c.run(ctx, "srun", append(args, argv...)...)
}
