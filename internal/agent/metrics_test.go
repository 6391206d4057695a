package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// The GPU sampler reads the stand-ins as it reads the real tools: eight GPUs of an A3 with their
// UUIDs, bus ids and memory, GPU 0's uncorrected ECC errors, NVLink replays and a driver XID.
func TestSampleGPUs_standIns(t *testing.T) {
	r := standInRunner(t, "a3-highgpu-8g", gpustandin.Fault{UncorrectedECC: 3, NVLinkErrors: 7})
	tool := func(ctx context.Context, name string, args ...string) (string, error) {
		if name == "dmesg" {
			return "[ 12.3] NVRM: Xid (PCI:0000:05:00): 79, pid=1234, GPU has fallen off the bus.\n", nil
		}
		return r.tool(ctx, name, args...)
	}
	gpus := sampleGPUs(context.Background(), tool)
	if len(gpus) != 8 {
		t.Fatalf("sampled %d GPUs, want 8: %+v", len(gpus), gpus)
	}
	g0, g1 := gpus[0], gpus[1]
	if g0.ECCDBEVolatile != 3 || g1.ECCDBEVolatile != 0 || g0.NVLinkReplay != 7 || g1.NVLinkReplay != 0 || g0.NVLinkCRC != 0 {
		t.Errorf("counters: GPU 0 %+v, GPU 1 %+v", g0, g1)
	}
	if g1.LastXID != 79 || g0.LastXID != 0 {
		t.Errorf("XID 79 on bus 05 (GPU 1): GPU 0 %v, GPU 1 %v", g0.LastXID, g1.LastXID)
	}
	if !strings.HasPrefix(g0.UUID, "GPU-") || g0.ModelName != "NVIDIA H100 80GB HBM3" || g0.BusID != "00000000:04:00.0" || g0.FBFreeMiB <= 0 || g0.UtilPercent != 0 {
		t.Errorf("GPU 0: %+v", g0)
	}
	// A tool that fails leaves the GPUs out, not zeros in.
	if got := sampleGPUs(context.Background(), func(context.Context, string, ...string) (string, error) { return "", os.ErrNotExist }); got != nil {
		t.Errorf("failed nvidia-smi gave %+v", got)
	}
}

// The controller's Slurm snapshot groups sinfo's states as prometheus-slurm-exporter does, counts a
// node in two partitions once in the totals, and lists the nodes a health check drained.
func TestSlurmSnapshot(t *testing.T) {
	node := func(name, part, state, reason string) slurm.PartitionNode {
		return slurm.PartitionNode{NodeInfo: slurm.NodeInfo{Name: name, State: state, Reason: reason}, Partition: part}
	}
	s, drained := slurmSnapshot([]slurm.PartitionNode{
		node("a-0", "a", "allocated", ""), node("a-1", "a", "drained", cc.HealthDrainReason(cc.CheckECC, "GPU 0 has 2")),
		node("a-d0", "a", "idle~", ""), node("a-d1", "a", "mixed", ""), node("a-2", "a", "draining", "admin"),
		node("a-0", "b", "allocated", ""), node("b-0", "b", "down*", "Not responding"),
	}, []slurm.QueuedJob{{Partition: "a", State: "RUNNING"}, {Partition: "a", State: "PENDING"}, {Partition: "b", State: "PENDING"}, {Partition: "b", State: "COMPLETED"}})
	want := map[string]int{"alloc": 1, "drain": 2, "idle": 1, "mix": 1, "down": 1}
	for st, n := range want {
		if s.Nodes[st] != n {
			t.Errorf("slurm_nodes_%s = %d, want %d (%v)", st, s.Nodes[st], n, s.Nodes)
		}
	}
	if s.PartitionNodes["b"]["alloc"] != 1 || s.PartitionNodes["a"]["alloc"] != 1 {
		t.Errorf("per partition: %v", s.PartitionNodes)
	}
	if s.Queue["pending"] != 2 || s.Queue["running"] != 1 || s.Queue["completed"] != 1 || s.PartitionJobs["b"]["pending"] != 1 {
		t.Errorf("queue %v, per partition %v", s.Queue, s.PartitionJobs)
	}
	if len(drained) != 1 || drained[0] != (metrics.DrainedNode{Node: "a-1", Partition: "a", Check: cc.CheckECC}) {
		t.Errorf("drained by a health check: %+v", drained)
	}
}

// A recipe job's series come from its Progress file and the trainer's last metrics line.
func TestJobMetrics(t *testing.T) {
	run := t.TempDir()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	p := recipes.Progress{Step: 40, MaxSteps: 100, LastLoss: 2.5, LastCheckpointTime: now.Add(-25 * time.Second).Format(time.RFC3339),
		StartedAt: now.Add(-time.Minute).Format(time.RFC3339), CheckpointCostSecond: 0.4, IntervalSeconds: 10, LostSeconds: 3, MFU: 0.21, TrainSeconds: 20}
	b, _ := json.Marshal(p)
	os.WriteFile(filepath.Join(run, recipes.ProgressFile), b, 0o644)
	os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte(`{"step": 30, "step_time": 0.6, "tokens_per_s": 900}
{"step": 40, "loss": 2.5, "step_time": 0.45, "tokens_per_s": 1100.5}
{"step": 4`), 0o644)
	jobs := jobMetrics(map[string]*jobRecord{"long": {Name: "long", JobID: 7, RunDir: run, Partition: "cpu", Report: &cc.JobReport{State: "RUNNING"}},
		"queued": {Name: "queued", Partition: "cpu"}}, now)
	if len(jobs) != 1 {
		t.Fatalf("jobs %+v; only the submitted one has series", jobs)
	}
	j := jobs[0]
	if j.Step != 40 || j.Loss != 2.5 || j.StepSeconds != 0.45 || j.TokensPerSecond != 1100.5 || j.CheckpointAgeSeconds != 25 ||
		j.CheckpointIntervalSeconds != 10 || j.CheckpointCostSeconds != 0.4 || j.LostSeconds != 3 || j.MFU != 0.21 || j.RunStarted != float64(now.Add(-time.Minute).Unix()) {
		t.Errorf("job series: %+v", j)
	}
}

// Every VM's agent serves /metrics on its internal address and the cluster's port once the
// controller published the monitoring block, with the health checks' last results; other
// handlers share the server; without the block it stops listening.
func TestMetricsServer_node(t *testing.T) {
	home := t.TempDir()
	state := t.TempDir()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	h := &host{log: slog.New(slog.NewTextHandler(io.Discard, nil)), stateDir: state, listenIP: "127.0.0.1"}
	n := cc.Node{Role: cc.RoleCompute, Partition: "cpu", Mounts: cc.Mounts{Home: cc.NFSMount{MountPoint: home}}}
	h.Mux().HandleFunc("GET /report", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "report") })
	h.monitor(context.Background(), n, nil)
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	if _, err := http.Get(url + "/metrics"); err == nil {
		t.Fatal("serving metrics before the controller published the monitoring block")
	}
	shared := filepath.Join(n.Mounts.SharedDir(), cc.SharedSlurmDir)
	os.MkdirAll(shared, 0o755)
	b, _ := json.Marshal(cc.Monitoring{MetricsPort: port})
	os.WriteFile(filepath.Join(shared, cc.SharedMonitoring), b, 0o644)
	recordCheckRuns(state, cc.SchedulePeriodic, []checkRun{{Check: cc.CheckDisk, Passed: true, Seconds: 0.02, Time: time.Now()}, {Check: cc.CheckMounts, Passed: false, Seconds: 3, Time: time.Now()}})
	h.monitor(context.Background(), n, nil)
	defer h.serveHTTP("")
	body := get(t, url+"/metrics")
	hostname, _ := os.Hostname()
	for _, want := range []string{
		`hypercompute_health_check_result{check="disk",node="` + hostname + `"} 1`,
		`hypercompute_health_check_result{check="mounts",node="` + hostname + `"} 0`,
		`hypercompute_health_check_duration_seconds_count{check="mounts"} 1`,
		"process_resident_memory_bytes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if got := get(t, url+"/report"); got != "report" {
		t.Errorf("/report: %q", got)
	}
	os.Remove(filepath.Join(shared, cc.SharedMonitoring))
	h.monitor(context.Background(), n, nil)
	if _, err := http.Get(url + "/metrics"); err == nil {
		t.Error("still serving after the monitoring block went away")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", url, resp.Status, b)
	}
	return string(b)
}

// Another VM of the subnet is refused; the controller (by its address or name) and the VM itself
// are served.
func TestMetricsServer_controllerOnly(t *testing.T) {
	h := &host{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h.Mux()
	h.http.allowFrom("10.0.0.5", cc.Controller{Hostname: "localhost", Address: "10.0.0.2"})
	for addr, want := range map[string]int{"10.0.0.2:4000": 200, "10.0.0.5:4000": 200, "127.0.0.1:4000": 200, "10.0.0.7:4000": 403} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.RemoteAddr = addr
		h.http.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("from %s: %d, want %d", addr, rec.Code, want)
		}
	}
}
