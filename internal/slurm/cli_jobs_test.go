package slurm

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestParseJobLine(t *testing.T) {
	line := "JobId=7 JobName=train UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 Account=(null) QOS=(null) " +
		"JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=2 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:12 " +
		"TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-01T21:00:00 EligibleTime=2026-12-01T21:00:00 AccrueTime=Unknown " +
		"StartTime=2026-12-01T21:00:01 EndTime=Unknown Deadline=N/A Partition=cpu AllocNode:Sid=hce-controller:1 " +
		"ReqNodeList=(null) ExcNodeList=(null) NodeList=hce-cpu-[0-1] BatchHost=hce-cpu-0 NumNodes=2 " +
		"Command=/var/lib/hypercompute/jobs/train-g1.sbatch WorkDir=/home StdErr=/home/run/slurm-7.out StdIn=/dev/null StdOut=/home/run/slurm-7.out Power="
	j, err := ParseJobLine(line)
	if err != nil {
		t.Fatal(err)
	}
	want := JobInfo{ID: 7, State: "RUNNING", Nodes: "hce-cpu-[0-1]", StdOut: "/home/run/slurm-7.out", Restarts: 2,
		SubmitTime: time.Date(2026, 12, 1, 21, 0, 0, 0, time.Local), StartTime: time.Date(2026, 12, 1, 21, 0, 1, 0, time.Local)}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("got  %+v\nwant %+v", j, want)
	}
	// A pending job: no nodes yet, a reason, no times but its submission.
	j, err = ParseJobLine("JobId=8 JobName=x JobState=PENDING Reason=BeginTime Dependency=(null) Restarts=0 " +
		"SubmitTime=2026-12-01T21:00:00 StartTime=Unknown EndTime=Unknown ReqNodeList=(null) NodeList=(null) StdOut=/tmp/o")
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != 8 || j.State != "PENDING" || j.Reason != "BeginTime" || j.Nodes != "" || !j.StartTime.IsZero() || j.SubmitTime.IsZero() {
		t.Errorf("pending job = %+v", j)
	}
	if _, err := ParseJobLine("slurm_load_jobs error"); err == nil {
		t.Fatal("a line without JobState parsed")
	}
}

// Each job call is the one command line the agent relied on before it went through CLI.
func TestCLIJobCommands(t *testing.T) {
	ctx := context.Background()
	r := &recorder{out: "sbatch: warning: something\n42;recipes"}
	cli := CLI{Conf: "/etc/slurm/slurm.conf", Run: r.run}
	if id, err := cli.Submit(ctx, "/var/lib/hypercompute/jobs/train-g1.sbatch"); err != nil || id != 42 {
		t.Errorf("Submit = %d, %v; want 42", id, err)
	}
	r.out = "NodeName=c-a3-0 Arch=x86_64 BootTime=2026-12-01T20:59:00 SlurmdStartTime=2026-12-01T21:00:05 LastBusyTime=Unknown"
	if st, err := cli.SlurmdStartTime(ctx, "c-a3-0"); err != nil || !st.Equal(time.Date(2026, 12, 1, 21, 0, 5, 0, time.Local)) {
		t.Errorf("SlurmdStartTime = %v, %v", st, err)
	}
	r.out = ""
	for _, err := range []error{cli.CancelJob(ctx, 7), cli.SignalBatch(ctx, 7, "USR1"), cli.RequeueJob(ctx, 7), cli.StartJobNow(ctx, 7)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	const env = "SLURM_CONF=/etc/slurm/slurm.conf|"
	want := []string{
		env + "sbatch --parsable /var/lib/hypercompute/jobs/train-g1.sbatch",
		env + "scontrol -o show node c-a3-0",
		env + "scancel 7",
		env + "scancel --batch --signal=USR1 7",
		env + "scontrol requeue 7",
		env + "scontrol update jobid=7 StartTime=now",
	}
	if !reflect.DeepEqual(r.calls, want) {
		t.Errorf("calls = %q\nwant %q", r.calls, want)
	}

	r.calls = nil
	r.out = "sbatch: error: Batch job submission failed: Invalid partition name specified"
	if _, err := cli.Submit(ctx, "/x"); err == nil {
		t.Error("sbatch output without a job id accepted")
	}
	r.out = "NodeName=c-a3-0 State=IDLE"
	if _, err := cli.SlurmdStartTime(ctx, "c-a3-0"); err == nil {
		t.Error("scontrol show node without SlurmdStartTime accepted")
	}
	n := len(r.calls)
	if err := cli.SignalBatch(ctx, 7, "USR1 9"); err == nil {
		t.Error("a signal with a space accepted")
	}
	if _, err := cli.SlurmdStartTime(ctx, "a b"); err == nil {
		t.Error("a node name with a space accepted")
	}
	if len(r.calls) != n {
		t.Errorf("refused calls must run nothing: %q", r.calls[n:])
	}
}

func TestCLIJobUnknown(t *testing.T) {
	r := &recorder{out: "slurm_load_jobs error: Invalid job id specified", err: errors.New("exit status 1")}
	_, err := CLI{Run: r.run}.Job(context.Background(), 987654)
	if !errors.Is(err, ErrNoSuchJob) {
		t.Errorf("Job(unknown) = %v, want ErrNoSuchJob", err)
	}
	r.out = "slurm_load_jobs error: Unable to contact slurm controller (connect failure)"
	if _, err := (CLI{Run: r.run}).Job(context.Background(), 7); err == nil || errors.Is(err, ErrNoSuchJob) {
		t.Errorf("Job with slurmctld down = %v, want an error that is not ErrNoSuchJob", err)
	}
}
