package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// jobsPending is how soon the controller looks again while a recipe job
// is queued, running or being cancelled, so its report stays fresh.
const jobsPending = 2 * time.Second

// jobRecord is what the controller's agent remembers about one recipe job
// (stateDir/jobs/<name>.json), so a restarted agent neither submits a job
// twice nor forgets one it must cancel.
type jobRecord struct {
	Name       string `json:"name"`
	Generation string `json:"generation"`
	JobID      int    `json:"job_id,omitempty"`
	RunDir     string `json:"run_dir,omitempty"`
	// Partition and MetricsDir (where the trainer's metrics.jsonl goes) label and feed the job's
	// metrics.
	Partition  string        `json:"partition,omitempty"`
	MetricsDir string        `json:"metrics_dir,omitempty"`
	Report     *cc.JobReport `json:"report,omitempty"`
	// Cancelled: the key is gone and scancel was sent.
	Cancelled bool `json:"cancelled,omitempty"`
	// RequeuedAt is the Slurm restart count at which the agent last
	// requeued the job because one of its nodes failed, so one failure
	// is requeued once.
	RequeuedAt int `json:"requeued_at,omitempty"`
	// EndedAt is when the agent first saw the job in a state Slurm may
	// still requeue it from (NODE_FAIL, PREEMPTED).
	EndedAt time.Time `json:"ended_at,omitzero"`
	// ReleasedAt is the restart count at which the agent last let a
	// requeued job start at once.
	ReleasedAt int `json:"released_at,omitempty"`
}

// requeueGrace is how long a job Slurm ended with NODE_FAIL or PREEMPTED
// is reported REQUEUED, not ended: a job submitted with --requeue goes
// back to PENDING within seconds.
const requeueGrace = time.Minute

// jobs serves the recipe jobs in the controller's metadata: each
// JobKey(name) is rendered (recipes.Render) and submitted once per
// generation, then polled and reported in JobAttr(name) until it ends; a
// key that disappears has its job cancelled and, once the job holds no
// node, its report deleted. A job running on a node Slurm sees down is
// requeued, so it resumes from its newest checkpoint elsewhere or when the
// node is back. It reports whether a job still needs watching.
func (c *controller) jobs(ctx context.Context, sched jobScheduler, attrs map[string]string, nodes slurmNodes) bool {
	dir := filepath.Join(c.stateDir, "jobs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		c.log.Error("cannot keep recipe job state", "error", err.Error())
		return false
	}
	records := c.loadJobRecords(dir)
	wanted := map[string]bool{}
	active := false
	for _, k := range sortedKeys(attrs) {
		name, ok := strings.CutPrefix(k, cc.JobKeyPrefix)
		if !ok {
			continue
		}
		wanted[name] = true
		rec := records[name]
		job, err := decodeJob(name, attrs[k])
		if err != nil {
			gen := job.Generation
			if gen == "" {
				gen = "invalid"
			}
			c.reportJob(ctx, dir, &jobRecord{Name: name, Generation: gen, Report: &cc.JobReport{Generation: gen, State: cc.JobStateRejected, Error: err.Error()}})
			continue
		}
		if rec != nil && rec.Generation != job.Generation {
			// The spec changed under the same name: the old run goes first.
			if !c.cancelJob(ctx, sched, dir, rec, false) {
				active = true
				continue
			}
			rec = nil
		}
		if rec == nil {
			rec = c.submitJob(ctx, sched, dir, job)
		} else if rec.Report == nil || !rec.Report.Final() {
			c.pollJob(ctx, sched, dir, rec, nodes)
		}
		if rec.Report == nil || !rec.Report.Final() {
			active = true
		}
	}
	for name, rec := range records {
		if wanted[name] {
			continue
		}
		if !c.cancelJob(ctx, sched, dir, rec, true) {
			active = true
		}
	}
	return active
}

// renderJob is recipes.Render; tests replace it.
var renderJob = recipes.Render

// decodeJob reads a JobKey value; the error names the key.
func decodeJob(name, v string) (recipes.Job, error) {
	var j recipes.Job
	if err := json.Unmarshal([]byte(v), &j); err != nil {
		return j, fmt.Errorf("metadata key %s is not a recipe job: %w", cc.JobKey(name), err)
	}
	switch {
	case j.Name != name:
		return j, fmt.Errorf("metadata key %s holds job %q, which belongs under %s", cc.JobKey(name), j.Name, cc.JobKey(j.Name))
	case j.Generation == "":
		return j, fmt.Errorf("metadata key %s: the job has no generation", cc.JobKey(name))
	case j.RunDir == "" || !filepath.IsAbs(j.RunDir):
		return j, fmt.Errorf("metadata key %s: run_dir %q is not an absolute path", cc.JobKey(name), j.RunDir)
	}
	return j, nil
}

// submitJob renders and submits one generation of a job. A job that cannot
// be rendered or that Slurm refuses is reported REJECTED with the reason,
// and not tried again until its spec changes.
func (c *controller) submitJob(ctx context.Context, sched jobScheduler, dir string, j recipes.Job) *jobRecord {
	rec := &jobRecord{Name: j.Name, Generation: j.Generation, RunDir: j.RunDir, Partition: j.Partition, MetricsDir: j.TensorBoardDir}
	reject := func(err error) *jobRecord {
		c.log.Error("recipe job rejected", "job", j.Name, "generation", j.Generation, "error", err.Error())
		rec.Report = &cc.JobReport{Generation: j.Generation, State: cc.JobStateRejected, Error: clipText(err.Error(), maxJobError)}
		c.reportJob(ctx, dir, rec)
		return rec
	}
	script, err := renderJob(j)
	if err != nil {
		return reject(fmt.Errorf("rendering the job script: %w", err))
	}
	// Slurm opens the job's output file in RunDir before the script runs.
	if err := os.MkdirAll(j.RunDir, 0o755); err != nil {
		return reject(fmt.Errorf("creating the job's run directory: %w", err))
	}
	file := filepath.Join(dir, j.Name+"-"+j.Generation+".sbatch")
	if _, err := writeFile(file, []byte(script.Body), 0o700, rootAccount); err != nil {
		return reject(err)
	}
	id, err := sched.submit(ctx, file, script)
	if err != nil {
		return reject(fmt.Errorf("submitting the job: %w", err))
	}
	c.log.Info("recipe job submitted", "job", j.Name, "generation", j.Generation, "slurm_job", id, "batch_signal", script.NeedsBatchSignal)
	rec.JobID = id
	rec.Report = &cc.JobReport{Generation: j.Generation, JobID: id, State: "PENDING"}
	c.reportJob(ctx, dir, rec)
	return rec
}

// pollJob refreshes a submitted job's report from Slurm and its Progress
// file, and requeues it when a node it runs on is down.
func (c *controller) pollJob(ctx context.Context, sched jobScheduler, dir string, rec *jobRecord, nodes slurmNodes) {
	st, err := sched.show(ctx, rec.JobID)
	rep := *rec.Report
	switch {
	case errors.Is(err, errJobUnknown):
		// slurmctld forgets a job MinJobAge after it ended; an agent that
		// was away that long only knows how far it got.
		rep.State = "FAILED"
		rep.Error = fmt.Sprintf("Slurm no longer knows job %d and the agent did not see it end", rec.JobID)
		if p, ok := readProgress(rec.RunDir); ok {
			var pr recipes.Progress
			if json.Unmarshal(p, &pr) == nil && pr.MaxSteps > 0 && pr.Step >= pr.MaxSteps {
				rep.State, rep.Error = "COMPLETED", ""
			}
		}
	case err != nil:
		c.log.Warn("cannot read recipe job state", "job", rec.Name, "slurm_job", rec.JobID, "error", err.Error())
		return
	default:
		rep.State, rep.Reason, rep.Nodes, rep.LogPath, rep.Requeues = st.State, st.Reason, st.Nodes, st.StdOut, st.Restarts
		rep.SubmitTime, rep.StartTime = st.SubmitTime, st.StartTime
		rep.EndTime = ""
		if st.State == "NODE_FAIL" || st.State == "PREEMPTED" {
			if rec.EndedAt.IsZero() {
				rec.EndedAt = time.Now()
			}
			if time.Since(rec.EndedAt) < requeueGrace {
				rep.State = "REQUEUED"
			}
		} else {
			rec.EndedAt = time.Time{}
		}
		if rep.Final() {
			rep.EndTime = st.EndTime
		}
	}
	if p, ok := readProgress(rec.RunDir); ok {
		rep.Progress = p
	}
	rep.AutoRestarts, rep.LastRestartCause = readAutoRestarts(rec.RunDir, rec.JobID)
	rec.Report = &rep
	if st.State == "PENDING" && st.Reason == "BeginTime" && st.Restarts > rec.ReleasedAt {
		// Slurm holds a requeued job back for two minutes; a recipe job resumes from its
		// checkpoint, and every minute it waits is lost.
		if err := sched.release(ctx, rec.JobID); err != nil {
			c.log.Warn("cannot release a requeued recipe job", "job", rec.Name, "slurm_job", rec.JobID, "error", err.Error())
		} else {
			rec.ReleasedAt = st.Restarts
		}
	}
	if rep.State == "RUNNING" && rec.RequeuedAt <= st.Restarts {
		down := downNodes(rep.Nodes, nodes)
		if len(down) == 0 {
			down = c.restartedNodes(ctx, sched, st)
		}
		if len(down) > 0 {
			if err := sched.requeue(ctx, rec.JobID); err != nil {
				c.log.Warn("cannot requeue a job whose node failed", "job", rec.Name, "slurm_job", rec.JobID, "nodes", down, "error", err.Error())
			} else {
				c.log.Info("requeued a recipe job whose node failed", "job", rec.Name, "slurm_job", rec.JobID, "nodes", down)
				rec.RequeuedAt = st.Restarts + 1
			}
		}
	}
	c.reportJob(ctx, dir, rec)
}

// cancelJob cancels a job that is no longer wanted (or replaced) and
// reports whether it is gone: Slurm holds it no more, or it ended. Once
// gone, a removed job's report is deleted (removed) and its record too.
func (c *controller) cancelJob(ctx context.Context, sched jobScheduler, dir string, rec *jobRecord, removed bool) bool {
	gone := rec.JobID == 0 || (rec.Report != nil && rec.Report.Final())
	if !gone {
		st, err := sched.show(ctx, rec.JobID)
		switch {
		case errors.Is(err, errJobUnknown):
			gone = true
		case err != nil:
			c.log.Warn("cannot read the state of a job to cancel", "job", rec.Name, "slurm_job", rec.JobID, "error", err.Error())
			return false
		case isTerminal(st.State):
			gone = true
		default:
			if !rec.Cancelled {
				if err := sched.cancel(ctx, rec.JobID); err != nil {
					c.log.Warn("cannot cancel a recipe job", "job", rec.Name, "slurm_job", rec.JobID, "error", err.Error())
					return false
				}
				c.log.Info("recipe job cancelled", "job", rec.Name, "slurm_job", rec.JobID)
				rec.Cancelled = true
			}
			if removed {
				rep := cc.JobReport{Generation: rec.Generation, JobID: rec.JobID, State: cc.JobStateCancelling}
				if rec.Report != nil {
					rep = *rec.Report
					rep.State = cc.JobStateCancelling
				}
				rec.Report = &rep
				c.reportJob(ctx, dir, rec)
			} else {
				c.saveJobRecord(dir, rec)
			}
			return false
		}
	}
	if removed {
		c.rep.clear(ctx, cc.JobAttr(rec.Name))
	}
	if err := os.Remove(filepath.Join(dir, rec.Name+".json")); err != nil && !os.IsNotExist(err) {
		c.log.Warn("cannot forget a recipe job", "job", rec.Name, "error", err.Error())
	}
	os.Remove(filepath.Join(dir, rec.Name+"-"+rec.Generation+".sbatch"))
	return true
}

// maxJobError keeps a report with an error text and a Progress within a
// guest attribute.
const maxJobError = 2000

// reportJob saves the record and publishes its report.
func (c *controller) reportJob(ctx context.Context, dir string, rec *jobRecord) {
	c.saveJobRecord(dir, rec)
	v, err := cc.EncodeJobReport(*rec.Report)
	if err != nil {
		c.log.Error("cannot report a recipe job", "job", rec.Name, "error", err.Error())
		return
	}
	c.rep.set(ctx, cc.JobAttr(rec.Name), v)
}

func (c *controller) saveJobRecord(dir string, rec *jobRecord) {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		_, err = writeFile(filepath.Join(dir, rec.Name+".json"), append(b, '\n'), 0o600, rootAccount)
	}
	if err != nil {
		c.log.Error("cannot save recipe job state", "job", rec.Name, "error", err.Error())
	}
}

func (c *controller) loadJobRecords(dir string) map[string]*jobRecord {
	out := map[string]*jobRecord{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		var rec jobRecord
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil || rec.Name == "" {
			c.log.Warn("ignoring unreadable recipe job state", "path", f)
			continue
		}
		out[rec.Name] = &rec
	}
	return out
}

// readProgress reads the job's Progress file; only a file that decodes is
// reported (the trainer replaces it atomically, so a torn one is a bug).
func readProgress(runDir string) (json.RawMessage, bool) {
	b, err := os.ReadFile(filepath.Join(runDir, recipes.ProgressFile))
	if err != nil {
		return nil, false
	}
	var p recipes.Progress
	if json.Unmarshal(b, &p) != nil {
		return nil, false
	}
	// The per-job split is goodput's (read from the file itself) and grows with every job
	// the run directory saw; the report has a 4 KB budget.
	p.LostByJob = nil
	// So is the loss history (the HTML report's, read from the file too).
	p.History, p.CheckpointSteps = nil, nil
	compact, err := json.Marshal(p)
	return compact, err == nil
}

// readAutoRestarts counts Slurm job jobID's automatic restarts in the run directory's
// recipes.RestartsFile (the batch script appends one line per restart; earlier jobs of the same
// run directory have lines of their own) and describes the last one.
func readAutoRestarts(runDir string, jobID int) (n int, cause string) {
	b, err := os.ReadFile(filepath.Join(runDir, recipes.RestartsFile))
	if err != nil {
		return 0, ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		var r struct {
			Time     string `json:"time"`
			JobID    string `json:"job_id"`
			ExitCode int    `json:"exit_code"`
			Step     int    `json:"step"`
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.JobID != strconv.Itoa(jobID) {
			continue
		}
		n++
		cause = fmt.Sprintf("training step exited %d at step %d (%s)", r.ExitCode, r.Step, r.Time)
	}
	return n, cause
}

// downNodes are the job's nodes that slurmctld sees down or not
// responding.
func downNodes(hostlist string, nodes slurmNodes) []string {
	if hostlist == "" || nodes.err != nil {
		return nil
	}
	names, err := cc.ExpandHostlist(hostlist)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		st := nodes.state[n]
		if strings.HasPrefix(st, "down") || strings.HasSuffix(st, "*") {
			out = append(out, n)
		}
	}
	return out
}

// restartedNodes are the nodes of a running job whose slurmd started after the job did: the node
// rebooted (or slurmd was restarted) under the job, so its tasks there are gone, even where
// slurmctld has not noticed (a reboot that keeps the boot time it knows).
func (c *controller) restartedNodes(ctx context.Context, sched jobScheduler, st jobStatus) []string {
	start, err := time.Parse(time.RFC3339, st.StartTime)
	if err != nil {
		return nil
	}
	names, err := cc.ExpandHostlist(st.Nodes)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if t, err := sched.slurmdStarted(ctx, n); err == nil && t.After(start) {
			out = append(out, n)
		}
	}
	return out
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " [...]"
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
