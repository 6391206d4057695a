package nodepartition_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// opLatency is how long every Compute operation stays RUNNING in the benchmarks.
const opLatency = time.Second

// baselineInFlight is Terraform's default parallelism: what `count = N` of per-VM resources gets.
const baselineInFlight = 10

const benchMachine = "a3-megagpu-8g"

// benchCloud is a fresh local cloud holding an A3 Mega-ready cluster (network with the TCPXO GPU
// network set, controller, fake agent), built without latency; then every Compute operation takes
// opLatency.
func benchCloud(b *testing.B) (*emulatortest.Env, *testCluster, *gcp.Clients) {
	b.Helper()
	env := emulatortest.Start(b)
	tc := newCluster(b, env, "bench", clusterOpts{gpuStack: "tcpxo"})
	cl, err := gcp.NewClients(context.Background(), gcp.Config{Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, EmulatorHost: env.Host, UserAgent: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cl.Close() })
	env.SetFaults(core.FaultSpec{Latency: map[string]core.Duration{"compute.*": core.Duration(opLatency)}})
	return env, tc, cl
}

// calls counts the Compute calls since the last reset: mutating ones, and reads.
func calls(env *emulatortest.Env) (mutating, reads int64) {
	for m, c := range env.Calls().Methods {
		if len(m) < 8 || m[:8] != "compute." {
			continue
		}
		if c.Mutating {
			mutating += c.Count
		} else {
			reads += c.Count
		}
	}
	return mutating, reads
}

// BenchmarkStaticPartition measures creating a static partition of N a3-megagpu-8g nodes with 1 s
// of operation latency: the resource's apply (template, bulkInsert, partition key, controller
// report) against a baseline that creates the same VMs with one insert per VM, 10 in flight, in
// a cloud of its own. For 1,000 nodes it also measures refresh and plan of the partition.
func BenchmarkStaticPartition(b *testing.B) {
	for _, n := range []int{8, 64, 512, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				benchStatic(b, n)
			}
		})
	}
}

func benchStatic(b *testing.B, n int) {
	ctx := context.Background()
	env, tc, cl := benchCloud(b)
	env.ResetCalls()
	start := time.Now()
	if err := nodepartition.ApplyForBench(ctx, cl, tc.id, "a3mega", benchMachine, n); err != nil {
		b.Fatal(err)
	}
	apply := time.Since(start)
	mut, reads := calls(env)
	if got := len(vmNames(env, "bench-a3mega")); got != n {
		b.Fatalf("the apply made %d VMs, want %d", got, n)
	}

	var refresh, plan time.Duration
	var refreshReads int64
	if n == 1000 {
		env.ResetCalls()
		p := &providerdata.Data{Clients: cl, Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, Emulated: true}
		var total int
		var err error
		refresh, plan, total, err = nodepartition.RefreshAndPlanForBench(ctx, p, tc.id, "a3mega", n)
		if err != nil {
			b.Fatal(err)
		}
		if total != n {
			b.Fatalf("refresh saw %d nodes, want %d", total, n)
		}
		_, refreshReads = calls(env)
	}

	baseline, baseMut := benchBaseline(b, n)

	b.ReportMetric(apply.Seconds(), "apply-s")
	b.ReportMetric(float64(mut), "mutating-calls")
	b.ReportMetric(float64(reads), "read-calls")
	b.ReportMetric(baseline.Seconds(), "baseline-s")
	b.ReportMetric(float64(baseMut), "baseline-mutating-calls")
	b.ReportMetric(baseline.Seconds()/apply.Seconds(), "speedup-x")
	line := fmt.Sprintf("| %d | %.2f s | %d | %d | %.1f s | %d | %.0f× |", n, apply.Seconds(), mut, reads, baseline.Seconds(), baseMut, baseline.Seconds()/apply.Seconds())
	if n == 1000 {
		b.ReportMetric(refresh.Seconds(), "refresh-s")
		b.ReportMetric(plan.Seconds(), "plan-s")
		b.ReportMetric(float64(refreshReads), "refresh-read-calls")
		line += fmt.Sprintf(" refresh %.3f s, plan (ModifyPlan) %.6f s, %d read calls", refresh.Seconds(), plan.Seconds(), refreshReads)
		// The targets at 1,000 nodes.
		if apply > 2*opLatency+time.Second {
			b.Errorf("apply took %s; the target is 2 × %s + 1 s", apply, opLatency)
		}
		if baseline < 50*apply {
			b.Errorf("apply is %.0f× faster than the baseline; the target is 50×", baseline.Seconds()/apply.Seconds())
		}
		if mut > 10 {
			b.Errorf("apply made %d mutating calls; the target is at most 10", mut)
		}
		if refresh+plan > 2*time.Second || refreshReads > 5 {
			b.Errorf("refresh and plan took %s with %d read calls; the target is under 2 s and at most 5", refresh+plan, refreshReads)
		}
	}
	b.Log(line)
}

// benchBaseline creates the same n VMs as the partition would, one instances.insert per VM with
// baselineInFlight in flight, each waited for, in a cloud of its own.
func benchBaseline(b *testing.B, n int) (time.Duration, int64) {
	ctx := context.Background()
	env, tc, cl := benchCloud(b)
	inst, err := nodepartition.InstanceForBench(ctx, cl, tc.id, "a3mega", benchMachine)
	if err != nil {
		b.Fatal(err)
	}
	env.ResetCalls()
	start := time.Now()
	names := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range baselineInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				vm := proto.Clone(inst).(*computepb.Instance)
				vm.Name = proto.String(name)
				op, err := cl.Instances.Insert(ctx, &computepb.InsertInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, InstanceResource: vm, RequestId: gcp.NewRequestIDPtr()})
				if err == nil {
					_, err = cl.WaitCompute(ctx, op)
				}
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		names <- cc.NodeName("bench-a3mega", i)
	}
	close(names)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	took := time.Since(start)
	mut, _ := calls(env)
	if got := len(vmNames(env, "bench-a3mega")); got != n {
		b.Fatalf("the baseline made %d VMs, want %d", got, n)
	}
	return took, mut
}
