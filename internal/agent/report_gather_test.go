package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/report"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// reportFixture: sacctSample's jobs, job 9's run directory with a progress file (loss history,
// checkpoints, lost work and MFU), sinfo's gpu partition of 4 nodes, and a repaired node.
func reportFixture(t *testing.T) (reportSources, time.Time) {
	t.Helper()
	run := t.TempDir()
	p := recipes.Progress{Step: 300, SlurmJobID: "9", LostByJob: map[string]float64{"9": 45}, MFU: 0.4, TrainSeconds: 1000,
		History:         []recipes.ProgressPoint{{Step: 100, Loss: 4}, {Step: 200, Loss: 3}, {Step: 300, Loss: 2.5}},
		CheckpointSteps: []int{150, 300}}
	b, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(run, recipes.ProgressFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 13, 0, 0, 0, time.Local)
	cli := slurm.CLI{Run: func(_ context.Context, _ []string, name string, args ...string) (string, error) {
		switch {
		case name == "sacct":
			return sacctSample, nil
		case name == "sinfo" && strings.Contains(strings.Join(args, " "), "-p gpu"):
			return "gpu-0\ngpu-1\ngpu-2\ngpu-3\n", nil
		case name == "sinfo":
			return "", nil
		}
		return "", fmt.Errorf("unexpected %s %v", name, args)
	}}
	st := &healthState{Nodes: map[string]*nodeRecord{"gpu-1": {NodeHealth: cc.NodeHealth{Node: "gpu-1", Partition: "gpu"}}},
		Done: []HealthRepair{{Node: "gpu-1", Action: "reboot", Check: "gpu", Result: "ok", Started: now.Add(-3 * time.Hour), Finished: now.Add(-2 * time.Hour)},
			{Node: "gpu-1", Action: "reboot", Check: "gpu", Result: "ok", Started: now.Add(-30 * 24 * time.Hour), Finished: now.Add(-29 * 24 * time.Hour)}},
		Events: []HealthEvent{{Time: now.Add(-3*time.Hour - time.Minute), Node: "gpu-1", Kind: "detected", Check: "gpu"},
			{Time: now.Add(-2 * time.Hour), Node: "gpu-1", Kind: "repaired", Check: "gpu"},
			{Time: now.Add(-20 * 24 * time.Hour), Node: "gpu-1", Kind: "detected", Check: "gpu"}},
	}
	return reportSources{cli: cli, runDirs: map[string]string{"9": run}, health: st, cluster: "ml-dev"}, now
}

func TestReportGathersGoodputsSources(t *testing.T) {
	src, now := reportFixture(t)
	in, err := gatherReport(context.Background(), src, "7d", now)
	if err != nil {
		t.Fatal(err)
	}
	// 8 UTC days touch the window; every job ended (or waits) on the last, whose figures are
	// goodput's total for the sample.
	if len(in.Days) != 8 {
		t.Fatalf("%d days, want 8: %+v", len(in.Days), in.Days)
	}
	last := in.Days[len(in.Days)-1]
	if last.Jobs != 5 || fmt.Sprintf("%.3f %.3f %.2f", last.Scheduling, last.Runtime, last.Program) != "0.920 0.856 0.40" || !last.HasProgram {
		t.Errorf("the last day: %+v, want goodput's total (5 jobs, 92.0%%, 85.6%%, MFU 40%%)", last)
	}
	for _, d := range in.Days[:7] {
		if d.Jobs != 0 {
			t.Errorf("day %s has %d jobs, want none", d.Date, d.Jobs)
		}
	}
	var job9 *report.Job
	for i := range in.Jobs {
		if in.Jobs[i].ID == "9" {
			job9 = &in.Jobs[i]
		} else if len(in.Jobs[i].Loss) > 0 {
			t.Errorf("job %s has a loss curve but no progress file", in.Jobs[i].ID)
		}
	}
	if job9 == nil || len(job9.Loss) != 3 || job9.Loss[2] != (report.LossPoint{Step: 300, Loss: 2.5}) || len(job9.CheckpointSteps) != 2 {
		t.Fatalf("job 9: %+v, want its progress file's loss history and checkpoints", job9)
	}
	if len(in.Partitions) != 1 {
		t.Fatalf("partitions: %+v, want gpu only (debug's jobs never started)", in.Partitions)
	}
	gpu := in.Partitions[0]
	// 2 nodes × (100 + 300 + 200 + 600 + 1200) s, of 4 nodes × 7 days.
	if gpu.Nodes != 4 || gpu.AllocatedNodeSeconds != 4800 || math.Abs(gpu.Utilisation-4800/(4*7*86400.0)) > 1e-12 || gpu.Repairs != 1 || gpu.RepairNodeSeconds != 3600 {
		t.Errorf("gpu: %+v", gpu)
	}
	if len(in.Repairs) != 1 || in.Repairs[0].Partition != "gpu" || len(in.Events) != 2 {
		t.Errorf("health in the window: %+v %+v, want the one repair and its two events", in.Repairs, in.Events)
	}
}

func TestReportHandler(t *testing.T) {
	src, now := reportFixture(t)
	mux := http.NewServeMux()
	MountReport(mux, reportHandler(func(ctx context.Context, w string) (report.Input, error) { return gatherReport(ctx, src, w, now) }))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	res, err := http.Get(srv.URL + ReportPath)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("GET %s: %s %v", ReportPath, res.Status, res.Header)
	}
	if s := body; !strings.Contains(s, "<title>Goodput and health report: ml-dev</title>") || !strings.Contains(s, "Window 7d:") || !strings.Contains(s, `id="loss-chart-`) {
		t.Errorf("the page is not the 7d report of ml-dev:\n%.400s", s)
	}
	for path, want := range map[string]int{ReportPath + "?since=7y": 400, ReportPath + "?since=24h": 200} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res)
		if res.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", path, res.Status, want)
		}
	}
	res, err = http.Post(srv.URL+ReportPath, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", res.Status)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
