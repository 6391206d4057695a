package agent

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// A sample of `sacct -a -X -D -P -n -o JobIDRaw,JobName,Partition,State,Eligible,Start,End,ElapsedRaw,WorkDir,NNodes`
// as Slurm 22.05 prints it: job 7 ran 100 s after waiting 20 s; job 8 was requeued after 300 s
// (its first run all lost), waited 60 s and then ran 200 s; job 9 is a recipe requeued once whose
// progress file says 45 s were redone; job 10 was cancelled while pending; job 11 still waits (for 1 to 3 nodes).
const sacctSample = `7|train|gpu|COMPLETED|2026-12-01T10:00:00|2026-12-01T10:00:20|2026-12-01T10:02:00|100|/home/u/a|2
8|sweep|gpu|REQUEUED|2026-12-01T10:00:00|2026-12-01T10:00:00|2026-12-01T10:05:00|300|/home/u/b|2
8|sweep|gpu|COMPLETED|2026-12-01T10:05:00|2026-12-01T10:06:00|2026-12-01T10:09:20|200|/home/u/b|2
9|llama|gpu|NODE_FAIL|2026-12-01T11:00:00|2026-12-01T11:00:10|2026-12-01T11:10:10|600|/lustre/runs/llama|2
9|llama|gpu|COMPLETED|2026-12-01T11:10:10|2026-12-01T11:10:40|2026-12-01T11:30:40|1200|/lustre/runs/llama|2
10|dbg|debug|CANCELLED by 0|2026-12-01T12:00:00|None|2026-12-01T12:00:30|0|/home/u|1
11|dbg|debug|PENDING|2026-12-01T12:59:00|Unknown|Unknown|0|/home/u|1-3
`

func TestGoodputFromSacct(t *testing.T) {
	as, err := parseSacct(sacctSample)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 13, 0, 0, 0, time.Local)
	lost := func(id, dir string) (float64, bool) {
		if id == "9" && dir == "/lustre/runs/llama" {
			return 45, true
		}
		return 0, false
	}
	// Program goodput (MFU) from the recipes' progress files: job 9 0.40 over 1000 s of steps,
	// job 7 0.10 over 250 s; job 8 reports none.
	program := func(id, dir string) (float64, float64, bool) {
		switch id {
		case "9":
			return 0.40, 1000, true
		case "7":
			return 0.10, 250, true
		}
		return 0, 0, false
	}
	r := computeGoodput(as, "1d", now.Add(-24*time.Hour), now, lost, program)

	type want struct {
		state                string
		wait, run, lost      float64
		restarts             int
		scheduling, runtime_ float64
	}
	wants := map[string]want{
		"7":  {"COMPLETED", 20, 100, 0, 0, 100.0 / 120, 1},
		"8":  {"COMPLETED", 60, 500, 300, 1, 500.0 / 560, 200.0 / 500},
		"9":  {"COMPLETED", 40, 1800, 45, 1, 1800.0 / 1840, 1755.0 / 1800},
		"10": {"CANCELLED", 30, 0, 0, 0, 0, 1},
		"11": {"PENDING", 60, 0, 0, 0, 0, 1},
	}
	if len(r.Jobs) != len(wants) {
		t.Fatalf("%d jobs, want %d: %+v", len(r.Jobs), len(wants), r.Jobs)
	}
	for _, j := range r.Jobs {
		w := wants[j.JobID]
		if j.State != w.state || j.WaitSeconds != w.wait || j.RunSeconds != w.run || j.LostSeconds != w.lost || j.Restarts != w.restarts ||
			math.Abs(j.Scheduling-w.scheduling) > 1e-12 || math.Abs(j.Runtime-w.runtime_) > 1e-12 {
			t.Errorf("job %s: %+v %s; want %+v", j.JobID, j.GoodputFigures, j.State, w)
		}
	}
	gpu := r.Partitions["gpu"]
	if gpu.Jobs != 3 || gpu.RunSeconds != 2400 || gpu.WaitSeconds != 120 || gpu.LostSeconds != 345 || gpu.Restarts != 2 ||
		math.Abs(gpu.Runtime-2055.0/2400) > 1e-12 || math.Abs(gpu.Scheduling-2400.0/2520) > 1e-12 {
		t.Errorf("partition gpu: %+v", gpu)
	}
	// Step-time-weighted: (0.40·1000 + 0.10·250) / 1250 = 0.34, not the plain mean 0.25.
	if math.Abs(gpu.Program-0.34) > 1e-12 || gpu.ProgramSeconds != 1250 || r.Partitions["debug"].ProgramSeconds != 0 {
		t.Errorf("program goodput: gpu %.4f over %v s, debug %+v", gpu.Program, gpu.ProgramSeconds, r.Partitions["debug"])
	}
	if r.Total.Jobs != 5 || r.Total.WaitSeconds != 210 || r.Total.RunSeconds != 2400 || math.Abs(r.Total.Program-0.34) > 1e-12 {
		t.Errorf("total: %+v", r.Total)
	}

	var text bytes.Buffer
	if err := writeGoodputText(&text, r); err != nil {
		t.Fatal(err)
	}
	// Columns are aligned with spaces; compare the words of each line.
	var lines []string
	for _, l := range strings.Split(text.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	all := strings.Join(lines, "\n")
	for _, line := range []string{
		"gpu 3 120 2400 345 2 95.2% 85.6% 34.0%",
		"debug 2 90 0 0 0 0.0% 100.0% -",
		"TOTAL 5 210 2400 345 2 92.0% 85.6% 34.0%",
		"8 sweep gpu COMPLETED 60 500 300 1 89.3% 40.0% -",
		"9 llama gpu COMPLETED 40 1800 45 1 97.8% 97.5% 40.0%",
	} {
		if !strings.Contains(all, "\n"+line+"\n") {
			t.Errorf("the text report lacks %q:\n%s", line, text.String())
		}
	}
}

func TestSacctParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"too few fields":   "7|train|gpu|COMPLETED\n",
		"elapsed not int":  "7|train|gpu|COMPLETED|2026-12-01T10:00:00|2026-12-01T10:00:20|None|abc|/h|1\n",
		"bad time":         "7|train|gpu|COMPLETED|yesterday|2026-12-01T10:00:20|None|1|/h|1\n",
		"no state at all ": "7|train|gpu||2026-12-01T10:00:00|2026-12-01T10:00:20|None|1|/h|1\n",
		"nodes not int":    "7|train|gpu|COMPLETED|2026-12-01T10:00:00|2026-12-01T10:00:20|None|1|/h|two\n",
	} {
		if _, err := parseSacct(in); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestParseWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "24h": 24 * time.Hour, "90m": 90 * time.Minute, "2w": 14 * 24 * time.Hour} {
		if got, err := ParseWindow(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "d", "0d", "-1d", "7", "7y", "1.5d"} {
		if _, err := ParseWindow(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// Repairs from the health records count per partition, clipped to the window; one still running
// counts up to now.
func TestRepairFigures(t *testing.T) {
	now := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)
	since := now.Add(-24 * time.Hour)
	at := func(h, m int) time.Time { return time.Date(2026, 12, 1, h, m, 0, 0, time.UTC) }
	st := &healthState{Nodes: map[string]*nodeRecord{}}
	for node, part := range map[string]string{"c-a3-0": "a3", "c-a3-1": "a3", "c-cpu-0": "cpu"} {
		st.Nodes[node] = &nodeRecord{}
		st.Nodes[node].Partition = part
	}
	st.Done = []HealthRepair{
		{Node: "c-a3-0", Started: at(10, 0), Finished: at(10, 10), Result: "ok"},               // 600 s
		{Node: "c-a3-1", Started: since.Add(-time.Hour), Finished: since.Add(5 * time.Minute)}, // 300 s inside
		{Node: "c-cpu-0", Started: since.Add(-2 * time.Hour), Finished: since.Add(-time.Hour)}, // before the window
	}
	st.InProgress = []HealthRepair{{Node: "c-cpu-0", Started: at(12, 59)}} // 60 s so far
	got := repairFigures(st, since, now)
	if got["a3"] != (cc.RepairFigures{Repairs: 2, NodeSeconds: 900}) || got["cpu"] != (cc.RepairFigures{Repairs: 1, NodeSeconds: 60}) || len(got) != 2 {
		t.Errorf("repairs %+v", got)
	}
	if repairFigures(&healthState{Nodes: map[string]*nodeRecord{}}, since, now) != nil {
		t.Error("no repairs gave figures")
	}
}

// A recipe's progress file is found in its run directory (the controller's job record names it,
// for jobs from before the run directory was their working directory), else in the job's working
// directory; each Slurm job is charged only its own share of the lost work.
func TestProgressIn(t *testing.T) {
	run, work, old := t.TempDir(), t.TempDir(), t.TempDir()
	// Job 40 failed after making progress, job 41 (a new submission) resumed it and was requeued
	// once, and wrote the file last; job 39 ran here in an earlier generation and lost nothing.
	progress := `{"restarts":2,"lost_seconds":12.5,"slurm_job_id":"41","lost_by_job":{"40":10,"41":2.5}}`
	for dir, body := range map[string]string{run: progress, old: `{"restarts":1,"lost_seconds":7}`} {
		if err := os.WriteFile(filepath.Join(dir, recipes.ProgressFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lost := progressIn(map[string]string{"41": run})
	for _, c := range []struct {
		job, workDir string
		want         float64
		ok           bool
	}{
		{"41", work, 2.5, true}, // the record names its run directory
		{"40", run, 10, true},   // found in its working directory
		{"39", run, 0, false},   // unknown to the file: sacct's figure
		{"42", work, 0, false},  // no progress file
		{"43", old, 0, false},   // an older trainer's file has no per-job split
	} {
		if l, ok := lost(c.job, c.workDir); ok != c.ok || l != c.want {
			t.Errorf("job %s in %s: %v %v, want %v %v", c.job, c.workDir, l, ok, c.want, c.ok)
		}
	}
	if err := os.WriteFile(filepath.Join(work, recipes.ProgressFile), []byte(`{"slurm_job_id":"44","lost_by_job":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, ok := lost("44", work); !ok || l != 0 {
		t.Errorf("the file's own job, never restarted: %v %v, want 0 true", l, ok)
	}
}

// The progress file's MFU belongs to the job that wrote it last; other jobs of the run directory,
// and files without MFU, report none.
func TestProgramIn(t *testing.T) {
	run, work := t.TempDir(), t.TempDir()
	for dir, body := range map[string]string{
		run:  `{"slurm_job_id":"41","mfu":0.42,"train_seconds":300,"peak_tflops":0.005}`,
		work: `{"slurm_job_id":"50","lost_by_job":{}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, recipes.ProgressFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	program := programIn(map[string]string{"41": run})
	for _, c := range []struct {
		job, workDir string
		mfu, secs    float64
		ok           bool
	}{
		{"41", work, 0.42, 300, true}, // the record names its run directory
		{"40", run, 0, 0, false},      // an earlier job of the run directory
		{"50", work, 0, 0, false},     // a trainer that reports no MFU
		{"51", t.TempDir(), 0, 0, false},
	} {
		if m, s, ok := program(c.job, c.workDir); ok != c.ok || m != c.mfu || s != c.secs {
			t.Errorf("job %s in %s: %v %v %v, want %v %v %v", c.job, c.workDir, m, s, ok, c.mfu, c.secs, c.ok)
		}
	}
}
