package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
)

// checkRun is one health check's run on this node.
type checkRun struct {
	Check    string    `json:"check"`
	Passed   bool      `json:"passed"`
	Seconds  float64   `json:"seconds"`
	Schedule string    `json:"schedule"`
	Time     time.Time `json:"time"`
}

// healthResultsFile keeps each check's last run on this node: the checks run in slurmd's
// HealthCheckProgram, the prolog and the epilog, processes of their own, and the agent serves
// what they found from here.
const healthResultsFile = "health-results.json"

// recordCheckRuns merges a run's results into the node's file. Failing to record never fails a
// check: the drain is what matters.
func recordCheckRuns(dir, schedule string, runs []checkRun) {
	if len(runs) == 0 {
		return
	}
	p := filepath.Join(dir, healthResultsFile)
	all := readCheckRuns(p)
	for _, r := range runs {
		r.Schedule = schedule
		all[r.Check] = r
	}
	if b, err := json.Marshal(all); err == nil {
		writeFile(p, b, 0o644, rootAccount)
	}
}

func readCheckRuns(p string) map[string]checkRun {
	all := map[string]checkRun{}
	if b, err := os.ReadFile(p); err == nil {
		json.Unmarshal(b, &all)
	}
	return all
}

// gpuMetricFields is what the GPU sampler asks nvidia-smi, the fields dcgm-exporter's default
// counters carry.
var gpuMetricFields = []string{"index", "name", "uuid", "pci.bus_id", "utilization.gpu", "memory.used", "memory.free",
	"ecc.errors.uncorrected.volatile.total"}

// sampleGPUs reads this node's GPUs with the tools the health checks use: nvidia-smi's query, its
// NVLink error counters, and the driver's XIDs in the kernel log. A tool that fails leaves its
// series out rather than reporting zeros.
func sampleGPUs(ctx context.Context, tool func(ctx context.Context, name string, args ...string) (string, error)) []metrics.GPU {
	out, err := tool(ctx, "nvidia-smi", "--query-gpu="+strings.Join(gpuMetricFields, ","), "--format=csv,noheader,nounits")
	if err != nil {
		return nil
	}
	recs, err := parseGPUCSV(out, len(gpuMetricFields))
	if err != nil {
		return nil
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil { // [N/A], [Not Supported]
			return -1
		}
		return v
	}
	gpus := make([]metrics.GPU, 0, len(recs))
	for _, r := range recs {
		idx, _ := strconv.Atoi(r[0])
		gpus = append(gpus, metrics.GPU{Index: idx, ModelName: r[1], UUID: r[2], BusID: r[3],
			UtilPercent: num(r[4]), FBUsedMiB: num(r[5]), FBFreeMiB: num(r[6]), ECCDBEVolatile: num(r[7]),
			LastXID: 0, NVLinkReplay: -1, NVLinkRecovery: -1, NVLinkCRC: -1})
	}
	if nv, err := tool(ctx, "nvidia-smi", "nvlink", "-e"); err == nil {
		counts := map[int]map[string]float64{}
		for _, c := range nvlinkCounters(nv) {
			if counts[c.GPU] == nil {
				counts[c.GPU] = map[string]float64{}
			}
			counts[c.GPU][c.Kind] += float64(c.Count)
		}
		for i := range gpus {
			if c, ok := counts[gpus[i].Index]; ok {
				gpus[i].NVLinkReplay, gpus[i].NVLinkRecovery, gpus[i].NVLinkCRC = c["Replay Errors"], c["Recovery Errors"], c["CRC Errors"]
			}
		}
	}
	if log, err := tool(ctx, "dmesg"); err == nil {
		for _, x := range parseXIDs(log) {
			for i := range gpus {
				if sameBus(x.Device, gpus[i].BusID) {
					gpus[i].LastXID = float64(x.XID)
				}
			}
		}
	} else {
		for i := range gpus {
			gpus[i].LastXID = -1
		}
	}
	return gpus
}

// sameBus compares the kernel log's "PCI:0000:04:00" with nvidia-smi's "00000000:04:00.0" by
// their bus and device.
func sameBus(kernel, smi string) bool {
	k := strings.ToLower(strings.TrimPrefix(kernel, "PCI:"))
	s := strings.ToLower(strings.TrimSuffix(smi, ".0"))
	tail := func(v string) string {
		f := strings.Split(v, ":")
		if len(f) < 2 {
			return v
		}
		return f[len(f)-2] + ":" + f[len(f)-1]
	}
	return tail(k) == tail(s)
}

// startSamplers registers what this VM samples when its metrics are gathered: on every VM the
// health checks' last results, on a VM with GPU tools the GPUs, and on the controller Slurm,
// recipe jobs and repairs.
func (h *host) startSamplers(n cc.Node) {
	h.samplersOnce.Do(func() {
		reg := h.metrics()
		hostname, _ := os.Hostname()
		results := filepath.Join(h.stateDir, healthResultsFile)
		reg.OnGather(func() {
			runs := readCheckRuns(results)
			list := make([]metrics.CheckResult, 0, len(runs))
			for _, r := range runs {
				list = append(list, metrics.CheckResult{Check: r.Check, Passed: r.Passed, Seconds: r.Seconds, Schedule: r.Schedule, Time: r.Time})
			}
			sort.Slice(list, func(i, j int) bool { return list[i].Check < list[j].Check })
			reg.SetHealthResults(hostname, list)
		})
		if _, err := lookTool("nvidia-smi"); err == nil {
			reg.OnGather(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				reg.SetGPUs(hostname, sampleGPUs(ctx, runTool))
			})
		}
		if n.Role == cc.RoleController {
			h.controllerSamplers(reg, n.Layout.WithDefaults())
		}
	})
}
