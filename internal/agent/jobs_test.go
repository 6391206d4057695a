package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// fakeSlurm plays Slurm for the controller's job handling.
type fakeSlurm struct {
	next      int
	submitted []string // script files
	jobs      map[int]jobStatus
	cancelled []int
	requeued  []int
	released  []int
	slurmd    map[string]time.Time
}

func (f *fakeSlurm) submit(_ context.Context, file string, _ recipes.Script) (int, error) {
	f.next++
	f.submitted = append(f.submitted, file)
	f.jobs[f.next] = jobStatus{State: "PENDING", Reason: "Resources"}
	return f.next, nil
}

func (f *fakeSlurm) show(_ context.Context, id int) (jobStatus, error) {
	st, ok := f.jobs[id]
	if !ok {
		return jobStatus{}, errJobUnknown
	}
	return st, nil
}

func (f *fakeSlurm) cancel(_ context.Context, id int) error {
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeSlurm) release(_ context.Context, id int) error {
	f.released = append(f.released, id)
	return nil
}

func (f *fakeSlurm) slurmdStarted(_ context.Context, node string) (time.Time, error) {
	t, ok := f.slurmd[node]
	if !ok {
		return time.Time{}, errors.New("no such node")
	}
	return t, nil
}

func (f *fakeSlurm) requeue(_ context.Context, id int) error {
	f.requeued = append(f.requeued, id)
	return nil
}

type jobsHarness struct {
	t     *testing.T
	c     *controller
	ga    *fakeAttributes
	slurm *fakeSlurm
	run   string
}

func newJobsHarness(t *testing.T) *jobsHarness {
	ga := &fakeAttributes{values: map[string]string{}}
	h := &host{log: quietLog(), rep: newReporter(ga, quietLog()), stateDir: t.TempDir()}
	prev := renderJob
	renderJob = func(j recipes.Job) (recipes.Script, error) {
		if j.Model == "nope" {
			return recipes.Script{}, errors.New("recipes: unknown model nope")
		}
		return recipes.Script{Body: "#!/bin/bash\necho " + j.Name + "\n", NeedsBatchSignal: true}, nil
	}
	t.Cleanup(func() { renderJob = prev })
	return &jobsHarness{t: t, c: &controller{host: h}, ga: ga, slurm: &fakeSlurm{jobs: map[int]jobStatus{}, slurmd: map[string]time.Time{}}, run: t.TempDir()}
}

func (h *jobsHarness) key(name, gen, model string) (string, string) {
	b, _ := json.Marshal(recipes.Job{Name: name, Generation: gen, Model: model, RunDir: filepath.Join(h.run, name), MaxSteps: 100})
	return cc.JobKey(name), string(b)
}

func (h *jobsHarness) pass(attrs map[string]string, nodes slurmNodes) bool {
	return h.c.jobs(context.Background(), h.slurm, attrs, nodes)
}

func (h *jobsHarness) report(name string) cc.JobReport {
	h.t.Helper()
	v, ok := h.ga.values[cc.JobAttr(name)]
	if !ok {
		h.t.Fatalf("no report for %s: %v", name, h.ga.values)
	}
	r, err := cc.DecodeJobReport(v)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func noNodes() slurmNodes { return slurmNodes{state: map[string]string{}} }

// A job is submitted once per generation, reported with Slurm's state and
// the trainer's Progress file while it runs, and left alone once it ended.
func TestJobsSubmitOncePollAndFinish(t *testing.T) {
	h := newJobsHarness(t)
	k, v := h.key("train", "g1", "tiny-gpt")
	attrs := map[string]string{k: v, "unrelated": "x"}
	if !h.pass(attrs, noNodes()) {
		t.Fatal("a submitted job is not active")
	}
	if r := h.report("train"); r.JobID != 1 || r.State != "PENDING" || r.Generation != "g1" {
		t.Fatalf("after submit: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.run, "train")); err != nil {
		t.Fatalf("the run directory was not created before submission: %v", err)
	}
	h.slurm.jobs[1] = jobStatus{State: "RUNNING", Nodes: "c-cpu-[0-1]", StdOut: "/home/x/slurm-1.out", StartTime: "2026-12-01T21:00:00Z"}
	prog := recipes.Progress{Step: 40, MaxSteps: 100, FirstLoss: 5.5, LastLoss: 3.25, LastCheckpointStep: 30, Checkpoints: 3}
	b, _ := json.Marshal(prog)
	if err := os.WriteFile(filepath.Join(h.run, "train", recipes.ProgressFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	h.pass(attrs, noNodes())
	r := h.report("train")
	var got recipes.Progress
	if err := json.Unmarshal(r.Progress, &got); err != nil || got.Step != 40 || got.LastLoss != 3.25 {
		t.Fatalf("progress not reported: %+v (%v)", r, err)
	}
	if r.State != "RUNNING" || r.Nodes != "c-cpu-[0-1]" || r.LogPath != "/home/x/slurm-1.out" || r.EndTime != "" {
		t.Fatalf("running: %+v", r)
	}
	h.slurm.jobs[1] = jobStatus{State: "COMPLETED", EndTime: "2026-12-01T21:05:00Z"}
	if h.pass(attrs, noNodes()) {
		t.Fatal("a completed job is still active")
	}
	if r := h.report("train"); r.State != "COMPLETED" || r.EndTime != "2026-12-01T21:05:00Z" {
		t.Fatalf("completed: %+v", r)
	}
	// A restarted agent (fresh controller, same state dir) does not submit again.
	h.c = &controller{host: h.c.host}
	h.pass(attrs, noNodes())
	if len(h.slurm.submitted) != 1 {
		t.Fatalf("submitted %d times: %v", len(h.slurm.submitted), h.slurm.submitted)
	}
}

// Removing the key cancels a running job once, reports CANCELLING while
// Slurm still holds it, and deletes the report when it is gone.
func TestJobsRemovedKeyCancels(t *testing.T) {
	h := newJobsHarness(t)
	k, v := h.key("train", "g1", "tiny-gpt")
	h.pass(map[string]string{k: v}, noNodes())
	h.slurm.jobs[1] = jobStatus{State: "RUNNING"}
	h.pass(map[string]string{k: v}, noNodes())
	if !h.pass(map[string]string{}, noNodes()) {
		t.Fatal("a job being cancelled is not active")
	}
	h.pass(map[string]string{}, noNodes())
	if len(h.slurm.cancelled) != 1 || h.slurm.cancelled[0] != 1 {
		t.Fatalf("cancelled: %v", h.slurm.cancelled)
	}
	if r := h.report("train"); r.State != cc.JobStateCancelling {
		t.Fatalf("while cancelling: %+v", r)
	}
	h.slurm.jobs[1] = jobStatus{State: "CANCELLED"}
	if h.pass(map[string]string{}, noNodes()) {
		t.Fatal("a cancelled job is still active")
	}
	if _, ok := h.ga.values[cc.JobAttr("train")]; ok {
		t.Fatal("the report of a removed job is still there")
	}
	if files, _ := filepath.Glob(filepath.Join(h.c.stateDir, "jobs", "*")); len(files) != 0 {
		t.Fatalf("state left behind: %v", files)
	}
}

// A new generation under the same name replaces the job: the old one is
// cancelled and gone before the new one is submitted.
func TestJobsNewGenerationReplaces(t *testing.T) {
	h := newJobsHarness(t)
	k, v1 := h.key("train", "g1", "tiny-gpt")
	_, v2 := h.key("train", "g2", "tiny-gpt")
	h.pass(map[string]string{k: v1}, noNodes())
	h.slurm.jobs[1] = jobStatus{State: "RUNNING"}
	h.pass(map[string]string{k: v2}, noNodes())
	if len(h.slurm.submitted) != 1 || len(h.slurm.cancelled) != 1 {
		t.Fatalf("submitted %v, cancelled %v: the new generation must wait for the old job to go", h.slurm.submitted, h.slurm.cancelled)
	}
	h.slurm.jobs[1] = jobStatus{State: "CANCELLED"}
	h.pass(map[string]string{k: v2}, noNodes())
	if r := h.report("train"); r.Generation != "g2" || r.JobID != 2 {
		t.Fatalf("after the replacement: %+v", r)
	}
}

// A job that cannot be rendered is REJECTED with the reason, once.
func TestJobsRejected(t *testing.T) {
	h := newJobsHarness(t)
	k, v := h.key("bad", "g1", "nope")
	if h.pass(map[string]string{k: v}, noNodes()) {
		t.Fatal("a rejected job is active")
	}
	h.pass(map[string]string{k: v}, noNodes())
	r := h.report("bad")
	if r.State != cc.JobStateRejected || !strings.Contains(r.Error, "unknown model nope") || len(h.slurm.submitted) != 0 {
		t.Fatalf("rejected: %+v, submitted %v", r, h.slurm.submitted)
	}
	h.ga.values = map[string]string{}
	h.pass(map[string]string{cc.JobKey("odd"): `{"name":"other"}`}, noNodes())
	if r := h.report("odd"); r.State != cc.JobStateRejected || !strings.Contains(r.Error, "belongs under hypercompute-job-other") {
		t.Fatalf("misplaced job: %+v", r)
	}
}

// A running job whose node Slurm sees down is requeued once per failure;
// NODE_FAIL on the way back to PENDING is not reported as the end.
func TestJobsRequeueOnDownNode(t *testing.T) {
	h := newJobsHarness(t)
	k, v := h.key("train", "g1", "tiny-gpt")
	attrs := map[string]string{k: v}
	h.pass(attrs, noNodes())
	h.slurm.jobs[1] = jobStatus{State: "RUNNING", Nodes: "c-cpu-[0-1]"}
	down := slurmNodes{state: map[string]string{"c-cpu-0": "mixed", "c-cpu-1": "idle*"}}
	h.pass(attrs, down)
	h.pass(attrs, down)
	if len(h.slurm.requeued) != 1 {
		t.Fatalf("requeued %v, want once", h.slurm.requeued)
	}
	h.slurm.jobs[1] = jobStatus{State: "NODE_FAIL", Restarts: 1}
	if !h.pass(attrs, noNodes()) || h.report("train").State != "REQUEUED" {
		t.Fatalf("NODE_FAIL of a requeued job: %+v", h.report("train"))
	}
	h.slurm.jobs[1] = jobStatus{State: "RUNNING", Nodes: "c-cpu-[0-1]", Restarts: 1}
	h.pass(attrs, down)
	if len(h.slurm.requeued) != 2 {
		t.Fatalf("a second failure was not requeued: %v", h.slurm.requeued)
	}
}

// A job as scontrol shows it becomes the report's status: times in UTC, RFC 3339, none while Slurm has none.
func TestJobStatusFromScontrol(t *testing.T) {
	line := "JobId=7 JobName=train UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 Account=(null) QOS=(null) " +
		"JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=2 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:12 " +
		"TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-01T21:00:00 EligibleTime=2026-12-01T21:00:00 AccrueTime=Unknown " +
		"StartTime=2026-12-01T21:00:01 EndTime=Unknown Deadline=N/A Partition=cpu AllocNode:Sid=hce-controller:1 " +
		"ReqNodeList=(null) ExcNodeList=(null) NodeList=hce-cpu-[0-1] BatchHost=hce-cpu-0 NumNodes=2 " +
		"Command=/var/lib/hypercompute/jobs/train-g1.sbatch WorkDir=/home StdErr=/home/run/slurm-7.out StdIn=/dev/null StdOut=/home/run/slurm-7.out Power="
	j, err := slurm.ParseJobLine(line)
	if err != nil {
		t.Fatal(err)
	}
	st := jobStatusOf(j)
	want := jobStatus{State: "RUNNING", Nodes: "hce-cpu-[0-1]", StdOut: "/home/run/slurm-7.out", Restarts: 2,
		SubmitTime: time.Date(2026, 12, 1, 21, 0, 0, 0, time.Local).UTC().Format(time.RFC3339),
		StartTime:  time.Date(2026, 12, 1, 21, 0, 1, 0, time.Local).UTC().Format(time.RFC3339)}
	if st != want {
		t.Fatalf("got  %+v\nwant %+v", st, want)
	}
}

// Scripts without a batch-only signal go through slurmrestd, every flag
// mapped; a flag with no REST field falls back to sbatch.
func TestJobSpecFromFlags(t *testing.T) {
	spec, err := jobSpecFromFlags(recipes.Script{Body: "#!/bin/bash\n", Sbatch: []string{
		"--job-name=train", "--partition=cpu", "--nodes=2", "--ntasks-per-node=1", "--requeue",
		"--output=/home/run/slurm-%j.out", "--chdir=/home/run", "--signal=USR1@120", "--time=90"}})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "train" || spec.Partition != "cpu" || spec.Nodes != 2 || spec.TasksPerNode != 1 || !spec.Requeue ||
		spec.StdOut != "/home/run/slurm-%j.out" || spec.WorkDir != "/home/run" || spec.Signal != "USR1@120" || spec.TimeLimit != 90*time.Minute {
		t.Fatalf("spec: %+v", spec)
	}
	if _, err := jobSpecFromFlags(recipes.Script{Sbatch: []string{"--exclusive"}}); err == nil || !strings.Contains(err.Error(), "--exclusive") {
		t.Fatalf("unknown flag: %v", err)
	}
}

// A node whose slurmd started after the job did (it rebooted under the job) has the job requeued,
// and a requeued job Slurm holds back until its BeginTime is let start at once.
func TestJobsRequeueOnRestartedNodeAndRelease(t *testing.T) {
	h := newJobsHarness(t)
	k, v := h.key("train", "g1", "tiny-gpt")
	attrs := map[string]string{k: v}
	h.pass(attrs, noNodes())
	start := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	h.slurm.slurmd["c-cpu-0"], h.slurm.slurmd["c-cpu-1"] = start.Add(-time.Minute), start.Add(-time.Minute)
	h.slurm.jobs[1] = jobStatus{State: "RUNNING", Nodes: "c-cpu-[0-1]", StartTime: start.Format(time.RFC3339)}
	h.pass(attrs, noNodes())
	if len(h.slurm.requeued) != 0 {
		t.Fatalf("requeued a job whose nodes are fine: %v", h.slurm.requeued)
	}
	h.slurm.slurmd["c-cpu-1"] = start.Add(time.Minute)
	h.pass(attrs, noNodes())
	h.pass(attrs, noNodes())
	if len(h.slurm.requeued) != 1 {
		t.Fatalf("requeued %v, want once after c-cpu-1 restarted", h.slurm.requeued)
	}
	h.slurm.jobs[1] = jobStatus{State: "PENDING", Reason: "BeginTime", Restarts: 1}
	h.pass(attrs, noNodes())
	h.pass(attrs, noNodes())
	if len(h.slurm.released) != 1 {
		t.Fatalf("released %v, want once", h.slurm.released)
	}
}
