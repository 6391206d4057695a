package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// childCPU is the CPU time of the tools the sampler ran (nvidia-smi and its shells).
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// nodeRegistry is an A3 node's registry as the agent fills it: the GPU stand-ins sampled on each
// gather, eight health checks' last results.
func nodeRegistry(b *testing.B) *metrics.Registry {
	r := standInRunner(&testing.T{}, "a3-highgpu-8g", gpustandin.Fault{})
	reg := metrics.New()
	checks := []string{cc.CheckGPU, cc.CheckECC, cc.CheckNVLink, cc.CheckDCGM, cc.CheckDisk, cc.CheckMounts, cc.CheckSlurmd, cc.CheckMunge}
	reg.OnGather(func() {
		var res []metrics.CheckResult
		for _, c := range checks {
			res = append(res, metrics.CheckResult{Check: c, Passed: true, Seconds: 0.1, Time: time.Unix(1, 0)})
		}
		reg.SetHealthResults("a3-0", res)
	})
	reg.OnGather(func() { reg.SetGPUs("a3-0", sampleGPUs(context.Background(), r.tool)) })
	return reg
}

// What metrics add to one node's agent per scrape: the CPU of a gather (the agent's own and the
// GPU tools it runs: three nvidia-smi calls and dmesg, here the stand-ins), the bytes served and
// the heap the registry keeps. Counted, not timed: the series count is asserted.
func BenchmarkNodeMetrics(b *testing.B) {
	before := heapInUse()
	reg := nodeRegistry(b)
	srv := httptest.NewServer(reg.Handler())
	defer srv.Close()
	body := fetch(b, srv.URL)
	heap := heapInUse() - before
	series := countSeries(b, body, "DCGM_FI_DEV_GPU_UTIL", "hypercompute_health_check_result")
	if series["DCGM_FI_DEV_GPU_UTIL"] != 8 || series["hypercompute_health_check_result"] != 8 {
		b.Fatalf("an A3 node serves %v", series)
	}
	own, tools := cpuTime(), childCPU()
	start := time.Now()
	for b.Loop() {
		// Every scrape samples anew, as at Prometheus' intervals (past the two-second floor).
		reg.Refresh()
		fetch(b, srv.URL)
	}
	n := float64(b.N)
	b.ReportMetric(float64((cpuTime()-own).Microseconds())/1000/n, "agent-cpu-ms/scrape")
	b.ReportMetric(float64((childCPU()-tools).Microseconds())/1000/n, "tools-cpu-ms/scrape")
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/n, "ms/scrape")
	b.ReportMetric(float64(len(body)), "bytes/scrape")
	b.ReportMetric(float64(heap)/1024, "heap-KiB")
}

// BenchmarkClusterScrape is one scrape of every agent of an N-node cluster, 16 at a time (as the
// controller's Prometheus scrapes targets in parallel), each agent serving an A3 node's series
// (values set, not sampled, so the figure is serving and parsing, not the GPU tools).
func BenchmarkClusterScrape(b *testing.B) {
	for _, nodes := range []int{64, 512} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			var urls []string
			for i := range nodes {
				reg := metrics.New()
				gpus := make([]metrics.GPU, 8)
				for g := range gpus {
					gpus[g] = metrics.GPU{Index: g, UUID: fmt.Sprintf("GPU-%d-%d", i, g), ModelName: "NVIDIA H100 80GB HBM3", BusID: fmt.Sprintf("00000000:%02X:00.0", g+4), FBFreeMiB: 81559}
				}
				reg.SetGPUs(fmt.Sprintf("n-%d", i), gpus)
				srv := httptest.NewServer(reg.Handler())
				defer srv.Close()
				urls = append(urls, srv.URL)
			}
			var total int
			for b.Loop() {
				total = 0
				var mu sync.Mutex
				sem := make(chan struct{}, 16)
				var wg sync.WaitGroup
				for _, u := range urls {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						body := fetch(b, u)
						s := countSeries(b, body, "DCGM_FI_DEV_FB_FREE")
						mu.Lock()
						total += s["DCGM_FI_DEV_FB_FREE"]
						mu.Unlock()
					}()
				}
				wg.Wait()
			}
			if total != 8*nodes {
				b.Fatalf("scraped %d GPU series from %d nodes, want %d", total, nodes, 8*nodes)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/cluster-scrape")
		})
	}
}

func fetch(b *testing.B, url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return body
}

// countSeries parses an exposition as Prometheus does and counts the samples of the named families.
func countSeries(b *testing.B, body []byte, names ...string) map[string]int {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		b.Fatalf("parsing the exposition: %v\n%s", err, strings.SplitN(string(body), "\n", 5))
	}
	out := map[string]int{}
	for _, n := range names {
		if f, ok := fams[n]; ok {
			out[n] = len(f.GetMetric())
		}
	}
	return out
}
