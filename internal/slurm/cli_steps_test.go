package slurm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A step is one srun, a task per node, with its limits in srun's units; its output comes back
// with a failure too.
func TestCLIRunStep(t *testing.T) {
	ctx := context.Background()
	r := &recorder{out: "0: # Avg bus bandwidth : 180.5", err: errors.New("exit status 1")}
	cli := CLI{Conf: "/etc/slurm/slurm.conf", Run: r.run}
	s := Step{Nodes: []string{"c-a3-0", "c-a3-1"}, Name: "hc-nccl-pairs", Immediate: time.Minute, TimeLimit: 4*time.Minute + time.Second}
	out, err := cli.RunStep(ctx, s, "all_reduce_perf", "-g", "8")
	if err == nil || out != r.out {
		t.Errorf("RunStep = %q, %v; want the step's output and its failure", out, err)
	}
	const want = "SLURM_CONF=/etc/slurm/slurm.conf|srun -l -N2 --ntasks-per-node=1 -w c-a3-0,c-a3-1 --immediate=60 --time=5 --job-name=hc-nccl-pairs all_reduce_perf -g 8"
	if len(r.calls) != 1 || r.calls[0] != want {
		t.Errorf("calls = %q\nwant %q", r.calls, want)
	}
	r.calls = nil
	for _, bad := range []Step{{}, {Nodes: []string{"c-a3-0 c-a3-1"}}} {
		if _, err := cli.RunStep(ctx, bad, "hostname"); err == nil {
			t.Errorf("step %+v accepted", bad)
		}
	}
	if _, err := cli.RunStep(ctx, Step{Nodes: []string{"c-a3-0"}}); err == nil {
		t.Error("a step without a command accepted")
	}
	if len(r.calls) != 0 {
		t.Errorf("refused steps ran %q", r.calls)
	}
}
