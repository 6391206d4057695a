package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// sacctFields are the columns goodput reads, in this order, from
// `sacct -a -X -D -P -n -o <fields>`: one line per attempt of each job (-D keeps the attempts a
// requeue ended), allocations only (-X).
var sacctFields = []string{"JobIDRaw", "JobName", "Partition", "State", "Eligible", "Start", "End", "ElapsedRaw", "WorkDir", "NNodes"}

// sacctTimeLayout is sacct's default time format (SLURM_TIME_FORMAT unset), in local time.
const sacctTimeLayout = "2006-01-02T15:04:05"

// attempt is one sacct line.
type attempt struct {
	jobID, name, partition, state, workDir string
	eligible, start, end                   time.Time // zero when sacct says Unknown or None
	elapsed                                float64
	nodes                                  int // the allocation's node count (the report's utilisation)
}

// interruptedStates end an attempt whose work is redone by the next one.
var interruptedStates = map[string]bool{"REQUEUED": true, "NODE_FAIL": true, "PREEMPTED": true, "BOOT_FAIL": true}

// parseSacct reads `sacct -P -n -o sacctFields` output.
func parseSacct(out string) ([]attempt, error) {
	var as []attempt
	for n, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != len(sacctFields) {
			return nil, fmt.Errorf("sacct line %d has %d fields, want %d (%s): %q", n+1, len(f), len(sacctFields), strings.Join(sacctFields, ","), line)
		}
		elapsed, err := strconv.ParseFloat(f[7], 64)
		if err != nil {
			return nil, fmt.Errorf("sacct line %d: ElapsedRaw %q is not a number", n+1, f[7])
		}
		a := attempt{jobID: f[0], name: f[1], partition: f[2], workDir: f[8], elapsed: elapsed}
		// Should sacct show a pending job's requested range (--nodes=2-4), count its least.
		least, _, _ := strings.Cut(f[9], "-")
		if a.nodes, err = strconv.Atoi(least); err != nil || a.nodes < 0 {
			return nil, fmt.Errorf("sacct line %d: NNodes %q is not a node count", n+1, f[9])
		}
		// "CANCELLED by 0" → CANCELLED.
		if a.state, _, _ = strings.Cut(f[3], " "); a.state == "" {
			return nil, fmt.Errorf("sacct line %d has no state", n+1)
		}
		for _, t := range []struct {
			dst *time.Time
			s   string
		}{{&a.eligible, f[4]}, {&a.start, f[5]}, {&a.end, f[6]}} {
			if t.s == "Unknown" || t.s == "None" || t.s == "" {
				continue
			}
			if *t.dst, err = time.ParseInLocation(sacctTimeLayout, t.s, time.Local); err != nil {
				return nil, fmt.Errorf("sacct line %d: time %q: %w", n+1, t.s, err)
			}
		}
		as = append(as, a)
	}
	return as, nil
}

// progressLost returns the work a recipe recorded as lost in Slurm job jobID's runs, if the job's
// progress file says; otherwise the caller counts the attempts Slurm interrupted.
type progressLost func(jobID, workDir string) (float64, bool)

// progressIn looks for the progress file in a recipe job's run directory (runDirs: Slurm job id →
// RunDir, from the controller's recipe job records, for jobs submitted before the run directory
// became their working directory), else in the job's working directory — where the login node's
// `goodput` command finds it too, so both compute the same figures.
func progressIn(runDirs map[string]string) progressLost {
	return func(jobID, workDir string) (float64, bool) {
		if d, ok := runDirs[jobID]; ok {
			workDir = d
		}
		return readProgressLost(workDir, jobID)
	}
}

// readProgressLost reads jobID's share of the lost work. A run directory outlives its Slurm jobs
// (a resubmission, a new generation), so the file's run total is no job's figure: only its
// per-job split counts, and a file without one (an older trainer) gives nothing.
func readProgressLost(workDir, jobID string) (float64, bool) {
	p, ok := readProgressFile(workDir)
	if !ok || p.LostByJob == nil {
		return 0, false
	}
	if l, ok := p.LostByJob[jobID]; ok {
		return l, true
	}
	// The file knows the jobs that ran here: one it never charged lost nothing, if it wrote the
	// file; a job it does not know (another run directory's) falls back to sacct.
	return 0, p.SlurmJobID == jobID
}

// progressProgram returns the program goodput (MFU) a recipe's progress file reports for Slurm
// job jobID and the step time it is a mean over; ok false when the file reports none for it.
type progressProgram func(jobID, workDir string) (mfu, seconds float64, ok bool)

// programIn finds the progress file as progressIn does.
func programIn(runDirs map[string]string) progressProgram {
	return func(jobID, workDir string) (float64, float64, bool) {
		if d, ok := runDirs[jobID]; ok {
			workDir = d
		}
		return readProgressProgram(workDir, jobID)
	}
}

// readProgressProgram reads the MFU of the file's run. The file keeps one mean per generation, so
// it is charged to the Slurm job that wrote the file last: an earlier job of the same run
// directory reports none rather than the whole run's.
func readProgressProgram(workDir, jobID string) (float64, float64, bool) {
	p, ok := readProgressFile(workDir)
	if !ok || p.SlurmJobID != jobID || !(p.MFU > 0) || !(p.TrainSeconds > 0) {
		return 0, 0, false
	}
	return p.MFU, p.TrainSeconds, true
}

// readProgressFile reads the recipe progress file in a run directory; false when there is none
// that decodes.
func readProgressFile(workDir string) (recipes.Progress, bool) {
	var p recipes.Progress
	if workDir == "" {
		return p, false
	}
	b, err := os.ReadFile(filepath.Join(workDir, recipes.ProgressFile))
	if err != nil || json.Unmarshal(b, &p) != nil {
		return recipes.Progress{}, false
	}
	return p, true
}

// computeGoodput turns attempts into a report. now stands for the wait of a job still pending.
// program may be nil (no progress files to read).
func computeGoodput(as []attempt, window string, since, now time.Time, lost progressLost, program progressProgram) cc.GoodputReport {
	var order []string
	byJob := map[string][]attempt{}
	for _, a := range as {
		if _, seen := byJob[a.jobID]; !seen {
			order = append(order, a.jobID)
		}
		byJob[a.jobID] = append(byJob[a.jobID], a)
	}
	r := cc.GoodputReport{Window: window, Since: since.UTC().Format(time.RFC3339), GeneratedAt: now.UTC().Format(time.RFC3339), Partitions: map[string]cc.GoodputFigures{}}
	var jobs []cc.JobGoodput
	for _, id := range order {
		runs := byJob[id]
		last := runs[len(runs)-1]
		j := cc.JobGoodput{JobID: id, Name: last.name, Partition: last.partition, State: last.state}
		j.Jobs = 1
		j.Restarts = len(runs) - 1
		var interrupted float64
		for _, a := range runs {
			switch {
			case !a.start.IsZero() && !a.eligible.IsZero():
				j.WaitSeconds += math.Max(0, a.start.Sub(a.eligible).Seconds())
			case a.start.IsZero() && !a.eligible.IsZero() && !a.end.IsZero():
				j.WaitSeconds += math.Max(0, a.end.Sub(a.eligible).Seconds()) // cancelled while waiting
			case a.start.IsZero() && !a.eligible.IsZero():
				j.WaitSeconds += math.Max(0, now.Sub(a.eligible).Seconds()) // still waiting
			}
			j.RunSeconds += a.elapsed
			if interruptedStates[a.state] {
				interrupted += a.elapsed
			}
		}
		j.LostSeconds = interrupted
		if l, ok := lost(id, last.workDir); ok {
			j.LostSeconds = l
		}
		j.LostSeconds = math.Min(j.LostSeconds, j.RunSeconds)
		if program != nil {
			if mfu, secs, ok := program(id, last.workDir); ok {
				j.Program, j.ProgramSeconds = mfu, secs
			}
		}
		j.GoodputFigures = withRatios(j.GoodputFigures)
		jobs = append(jobs, j)
		r.Total = add(r.Total, j.GoodputFigures)
		r.Partitions[j.Partition] = add(r.Partitions[j.Partition], j.GoodputFigures)
	}
	r.Total = withRatios(r.Total)
	for p, f := range r.Partitions {
		r.Partitions[p] = withRatios(f)
	}
	if len(jobs) > cc.GoodputReportMaxJobs {
		r.JobsOmitted = len(jobs) - cc.GoodputReportMaxJobs
		jobs = jobs[len(jobs)-cc.GoodputReportMaxJobs:]
	}
	r.Jobs = jobs
	if r.Jobs == nil {
		r.Jobs = []cc.JobGoodput{}
	}
	return r
}

func add(a, b cc.GoodputFigures) cc.GoodputFigures {
	a.Jobs += b.Jobs
	a.WaitSeconds += b.WaitSeconds
	a.RunSeconds += b.RunSeconds
	a.LostSeconds += b.LostSeconds
	a.Restarts += b.Restarts
	// Program goodput: the step-time-weighted mean of the jobs'.
	if t := a.ProgramSeconds + b.ProgramSeconds; t > 0 {
		a.Program = (a.Program*a.ProgramSeconds + b.Program*b.ProgramSeconds) / t
		a.ProgramSeconds = t
	}
	return a
}

func withRatios(f cc.GoodputFigures) cc.GoodputFigures {
	f.Scheduling, f.Runtime = 1, 1
	if t := f.RunSeconds + f.WaitSeconds; t > 0 {
		f.Scheduling = f.RunSeconds / t
	}
	if f.RunSeconds > 0 {
		f.Runtime = (f.RunSeconds - f.LostSeconds) / f.RunSeconds
	}
	return f
}

// ParseWindow reads a window such as 7d, 24h, 90m or 2w.
func ParseWindow(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if len(s) >= 2 {
		if u, ok := units[s[len(s)-1]]; ok {
			if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n > 0 {
				return time.Duration(n) * u, nil
			}
		}
	}
	return 0, fmt.Errorf("window %q is not a positive whole number of m, h, d or w (e.g. 7d)", s)
}

// measureGoodput reads the accounting records of jobs active since now-window and computes the report.
func measureGoodput(ctx context.Context, cli slurm.CLI, window string, now time.Time, runDirs map[string]string) (cc.GoodputReport, error) {
	d, err := ParseWindow(window)
	if err != nil {
		return cc.GoodputReport{}, err
	}
	since := now.Add(-d)
	out, err := cli.Accounting(ctx, since, sacctFields)
	if err != nil {
		return cc.GoodputReport{}, err
	}
	as, err := parseSacct(out)
	if err != nil {
		return cc.GoodputReport{}, err
	}
	return computeGoodput(as, window, since, now, progressIn(runDirs), programIn(runDirs)), nil
}

// inWindow is how much of [start, end] lies in [since, now]; a zero end is still open (now), a
// zero start never began.
func inWindow(start, end, since, now time.Time) time.Duration {
	if start.IsZero() {
		return 0
	}
	if end.IsZero() || end.After(now) {
		end = now
	}
	if start.Before(since) {
		start = since
	}
	return max(0, end.Sub(start))
}

// repairFigures sums the health policy's repairs that overlap [since, now] per partition.
func repairFigures(st *healthState, since, now time.Time) map[string]cc.RepairFigures {
	out := map[string]cc.RepairFigures{}
	for _, r := range append(append([]HealthRepair{}, st.Done...), st.InProgress...) {
		d := inWindow(r.Started, r.Finished, since, now)
		if d <= 0 {
			continue
		}
		partition := ""
		if n := st.Nodes[r.Node]; n != nil {
			partition = n.Partition
		}
		f := out[partition]
		f.Repairs++
		f.NodeSeconds += d.Seconds()
		out[partition] = f
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// goodputEvery is how often the controller refreshes its goodput reports.
const goodputEvery = 10 * time.Second

// reportGoodput refreshes the controller's goodput-<window> guest attributes.
func (c *controller) reportGoodput(ctx context.Context, cluster cc.Cluster) {
	if time.Since(c.acct.lastGoodput) < goodputEvery {
		return
	}
	now := time.Now()
	runDirs := map[string]string{}
	for _, rec := range c.loadJobRecords(filepath.Join(c.stateDir, "jobs")) {
		if rec.JobID != 0 && rec.RunDir != "" {
			runDirs[strconv.Itoa(rec.JobID)] = rec.RunDir
		}
	}
	var series []metrics.Goodput
	defer func() {
		if len(series) == len(cc.GoodputWindows) {
			c.metrics().SetGoodput(series)
		}
	}()
	for _, w := range cc.GoodputWindows {
		r, err := measureGoodput(ctx, slurm.CLI{Conf: clientConf, Run: runCommand}, w, now, runDirs)
		if err != nil {
			c.log.Warn("measuring goodput", "window", w, "error", err.Error())
			return
		}
		if since, err := time.Parse(time.RFC3339, r.Since); err == nil {
			r.Repairs = repairFigures(c.loadHealth(), since, now)
		}
		g := metrics.Goodput{Window: w, Scheduling: r.Total.Scheduling, Runtime: r.Total.Runtime, Program: r.Total.Program, Partitions: map[string]float64{}}
		for p, f := range r.Partitions {
			g.Partitions[p] = f.Runtime
		}
		series = append(series, g)
		v, err := cc.EncodeGoodputReport(r)
		if err != nil {
			c.log.Warn("encoding the goodput report", "window", w, "error", err.Error())
			return
		}
		c.rep.set(ctx, cc.GuestAttrGoodputPrefix+w, v)
	}
	c.acct.lastGoodput = now
}

// GoodputReport prints measured goodput over the window (e.g. "7d") from sacct, for the
// `hypercompute-agent goodput --since 7d` command on a login node.
func GoodputReport(ctx context.Context, window string, stdout io.Writer) error {
	r, err := measureGoodput(ctx, slurm.CLI{Run: runCommand}, window, time.Now(), nil)
	if err != nil {
		return err
	}
	return writeGoodputText(stdout, r)
}

func writeGoodputText(w io.Writer, r cc.GoodputReport) error {
	fmt.Fprintf(w, "Goodput over %s (jobs active since %s), from Slurm accounting\n", r.Window, r.Since)
	fmt.Fprintln(w, "scheduling = run / (run + wait); runtime = (run - lost) / run; program = model FLOPs / peak (MFU, step-time-weighted); seconds")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cols ...string) { fmt.Fprintln(tw, strings.Join(cols, "\t")) }
	figs := func(f cc.GoodputFigures) []string {
		program := "-" // no recipe reported MFU
		if f.ProgramSeconds > 0 {
			program = pct(f.Program)
		}
		return []string{strconv.Itoa(f.Jobs), secs(f.WaitSeconds), secs(f.RunSeconds), secs(f.LostSeconds), strconv.Itoa(f.Restarts), pct(f.Scheduling), pct(f.Runtime), program}
	}
	fmt.Fprintln(tw)
	row("PARTITION", "JOBS", "WAIT", "RUN", "LOST", "RESTARTS", "SCHEDULING", "RUNTIME", "PROGRAM")
	names := make([]string, 0, len(r.Partitions))
	for p := range r.Partitions {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		row(append([]string{p}, figs(r.Partitions[p])...)...)
	}
	row(append([]string{"TOTAL"}, figs(r.Total)...)...)
	fmt.Fprintln(tw)
	row("JOBID", "NAME", "PARTITION", "STATE", "WAIT", "RUN", "LOST", "RESTARTS", "SCHEDULING", "RUNTIME", "PROGRAM")
	for _, j := range r.Jobs {
		f := figs(j.GoodputFigures)
		row(append([]string{j.JobID, j.Name, j.Partition, j.State}, f[1:]...)...)
	}
	if r.JobsOmitted > 0 {
		row(fmt.Sprintf("(%d older jobs counted in the totals only)", r.JobsOmitted))
	}
	return tw.Flush()
}

func secs(s float64) string { return strconv.FormatFloat(math.Round(s), 'f', 0, 64) }
func pct(r float64) string  { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" }
