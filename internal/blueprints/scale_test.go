package blueprints_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// mlProdNodes is the benchmark's A3 Mega partition: four times what a /24 GPU subnet holds, so it
// applies only because ml-prod's gpu_subnet_prefix_length (default 21) sizes the subnets for it.
const mlProdNodes = 1000

// scaleRun is what one apply of ml-prod at mlProdNodes measured.
type scaleRun struct {
	apply, plan           time.Duration
	applyCalls, planCalls core.CallsSnapshot
}

// applyMLProdAtScale applies examples/blueprints/ml-prod as it is, with a3mega_static_nodes =
// mlProdNodes and its other defaults (16 dynamic A3 Mega nodes, 8 L4 Spot nodes, 2 login VMs),
// through the terraform CLI on an API-only local cloud of its own, the fake agent playing the
// controller's agent (it reports the static nodes registered once their VMs exist). It fails on
// counts only, never on time: mlProdNodes A3 Mega VMs must exist after the apply, the next plan
// (-detailed-exitcode) must be empty, and that plan must make no mutating call.
func applyMLProdAtScale(tb testing.TB) scaleRun {
	tb.Helper()
	env := emulatortest.Start(tb)
	acctest.StartFakeAgent(tb, env)
	seedReservation(tb, env, "a3mega", mlProdNodes+16)
	// An operator raises the region's instance quota before such a launch: room for the static
	// and dynamic A3 Mega nodes, the controller and 2 login VMs, and the 8 L4 Spot nodes.
	// Reserved nodes charge INSTANCES only.
	adminPost(tb, env, "/emulator/v1/quotas", emulator.QuotaRequest{Limits: []emulator.QuotaLimit{
		{Region: acctest.Region, Metric: catalog.QuotaInstances, Limit: mlProdNodes + 16 + 3 + 8},
	}})
	bp := newBlueprint(tb, env, "ml-prod", map[string]string{
		"project_id":          acctest.Project,
		"agent":               agentVar,
		"a3mega_reservation":  "a3mega",
		"a3mega_static_nodes": strconv.Itoa(mlProdNodes),
	})

	var r scaleRun
	env.ResetCalls()
	start := time.Now()
	bp.apply()
	r.apply, r.applyCalls = time.Since(start), providerCalls(env.Calls())
	if got := countVMs(tb, env, "ml-prod-a3mega"); got != mlProdNodes {
		tb.Fatalf("the apply made %d A3 Mega VMs, want %d", got, mlProdNodes)
	}

	env.ResetCalls()
	start = time.Now()
	bp.requireSettled("after the 1,000-node apply")
	r.plan, r.planCalls = time.Since(start), providerCalls(env.Calls())
	if r.planCalls.Mutating != 0 {
		tb.Errorf("the plan of the applied cluster made %d mutating calls, want none: %v", r.planCalls.Mutating, mutatingMethods(r.planCalls))
	}
	tb.Logf("ml-prod with %d a3-megagpu-8g nodes: apply %s (%d mutating, %d read calls), plan %s (%d read calls); mutating calls of the apply: %v",
		mlProdNodes, r.apply.Round(100*time.Millisecond), r.applyCalls.Mutating, r.applyCalls.Read,
		r.plan.Round(100*time.Millisecond), r.planCalls.Read, mutatingMethods(r.applyCalls))
	return r
}

// Issue 19 item 7's proof, in make test: ml-prod scaled to 1,000 A3 Mega nodes applies through the
// modules and plans empty. It takes seconds on the API-only local cloud.
func TestAccBlueprint_mlProdThousandNodes(t *testing.T) {
	acctest.PreCheck(t)
	applyMLProdAtScale(t)
}

// BenchmarkMLProdThousandNodes is the same apply, for its figures (docs/benchmarks.md): the apply
// and plan times and the calls each made.
func BenchmarkMLProdThousandNodes(b *testing.B) {
	for range b.N {
		r := applyMLProdAtScale(b)
		b.ReportMetric(r.apply.Seconds(), "apply-s")
		b.ReportMetric(float64(r.applyCalls.Mutating), "apply-mutating-calls")
		b.ReportMetric(float64(r.applyCalls.Read), "apply-read-calls")
		b.ReportMetric(r.plan.Seconds(), "plan-s")
		b.ReportMetric(float64(r.planCalls.Read), "plan-read-calls")
	}
}

// mutatingMethods is how many times each mutating method was called, for the benchmark's log.
// providerCalls leaves out of s the calls of the blueprint's gcs backend (reading and writing the
// state, taking and releasing its lock: Cloud Storage objects), which are Terraform's, not the
// provider's; ml-prod makes no object of its own.
func providerCalls(s core.CallsSnapshot) core.CallsSnapshot {
	out := s
	out.Methods = map[string]core.MethodCalls{}
	for m, c := range s.Methods {
		if !strings.HasPrefix(m, "storage.objects.") {
			out.Methods[m] = c
			continue
		}
		out.Total -= c.Count
		out.Errors -= c.Errors
		if c.Mutating {
			out.Mutating -= c.Count
		} else {
			out.Read -= c.Count
		}
	}
	return out
}

func mutatingMethods(s core.CallsSnapshot) map[string]int64 {
	out := map[string]int64{}
	for m, c := range s.Methods {
		if c.Mutating {
			out[m] = c.Count
		}
	}
	return out
}
