package slurm

import (
	"context"
	"reflect"
	"testing"
)

// JobsOn is one squeue over the hostlist; a job's name may hold spaces, and its node list is the
// job's whole allocation.
func TestCLIJobsOn(t *testing.T) {
	r := &recorder{out: "41 c-dbg-[0-1],c-dbg-d0 train llama 8b\n42 c-dbg-1 x\n\n"}
	jobs, err := CLI{Conf: "/etc/slurm/slurm.conf", Run: r.run}.JobsOn(context.Background(), "c-dbg-1", BusyJobStates...)
	want := []NodesJob{{ID: 41, Name: "train llama 8b", Nodes: "c-dbg-[0-1],c-dbg-d0"}, {ID: 42, Name: "x", Nodes: "c-dbg-1"}}
	if err != nil || !reflect.DeepEqual(jobs, want) {
		t.Fatalf("JobsOn = %+v, %v; want %+v", jobs, err, want)
	}
	if got := r.calls[0]; got != "SLURM_CONF=/etc/slurm/slurm.conf|squeue -h -w c-dbg-1 -t RUNNING,CONFIGURING,COMPLETING,SUSPENDED -o %A %N %j" {
		t.Errorf("command = %q", got)
	}
	r.out = "squeue: error: Invalid node name specified\n"
	if _, err := (CLI{Run: r.run}).JobsOn(context.Background(), "c-dbg-1", BusyJobStates...); err == nil {
		t.Error("squeue's complaint parsed as jobs")
	}
	if _, err := (CLI{Run: r.run}).JobsOn(context.Background(), "a b"); err == nil {
		t.Error("a hostlist with a space was passed to squeue")
	}
	r.out = "x c-dbg-1 train\n"
	if _, err := (CLI{Run: r.run}).JobsOn(context.Background(), "c-dbg-1", "RUNNING"); err == nil {
		t.Error("squeue output that is no job id accepted")
	}
	n := len(r.calls)
	if _, err := (CLI{Run: r.run}).JobsOn(context.Background(), "c-dbg-1"); err == nil {
		t.Error("JobsOn without a state accepted")
	}
	if len(r.calls) != n {
		t.Errorf("a refused JobsOn ran %q", r.calls[n:])
	}
}

// The states asked for are the ones squeue filters on; JobIDs keeps the jobs' order.
func TestCLIJobsOnStates(t *testing.T) {
	r := &recorder{out: "101 c-a3-0 a\n102 c-a3-[0-1] b\n"}
	jobs, err := CLI{Run: r.run}.JobsOn(context.Background(), "c-a3-0", "RUNNING", "COMPLETING")
	if ids := JobIDs(jobs); err != nil || !reflect.DeepEqual(ids, []int{101, 102}) {
		t.Errorf("JobsOn = %v, %v; want jobs 101 and 102", ids, err)
	}
	if got := r.calls[0]; got != "|squeue -h -w c-a3-0 -t RUNNING,COMPLETING -o %A %N %j" {
		t.Errorf("command = %q", got)
	}
}
