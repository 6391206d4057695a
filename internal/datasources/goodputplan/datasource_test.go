package goodputplan_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
)

const addr = "data.hypercompute_goodput_plan.test"

func plan(body string) string {
	return fmt.Sprintf("data \"hypercompute_goodput_plan\" \"test\" {\n%s}\n", body)
}

// near checks a numeric attribute within tol.
func near(name string, want, tol float64) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(addr, name, func(v string) error {
		got, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		if math.Abs(got-want) > tol {
			return fmt.Errorf("%s = %v, want %v ± %v", name, got, want, tol)
		}
		return nil
	})
}

// atLeast checks a numeric attribute is at least min.
func atLeast(name string, min float64) resource.TestCheckFunc { return atLeastAt(addr, name, min) }

func atLeastAt(addr, name string, min float64) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(addr, name, func(v string) error {
		got, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		if got < min {
			return fmt.Errorf("%s = %v, want at least %v", name, got, min)
		}
		return nil
	})
}

// noAPICalls asserts the local cloud answered no call: the plan is computed
// from the configuration and the catalog alone.
func noAPICalls(env *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if c := env.Calls(); c.Total != 0 {
			return fmt.Errorf("the goodput plan made %d API calls, want 0: %v", c.Total, c.Methods)
		}
		return nil
	}
}

// The plan a user reads matches the planner and the hand-computed figures,
// and reading it makes no API call.
func TestAccGoodputPlan_basic(t *testing.T) {
	env := acctest.New(t)
	// 1,024 H100s (128 a3-mega VMs) for 30 days with automatic repair, 2
	// spares and async checkpoints of 1,000 GiB to a 36,000 GiB Lustre
	// instance at 1,000 MB/s/TiB. The job's MTBF is 54 × 24 / 419 × 16 ≈
	// 49.49 h; a checkpoint persists in 1,000 × 2³⁰ / 35,156.25e6 ≈ 30.54 s.
	mtbi, _ := catalog.NodeMTBI("a3-mega")
	auto, _ := catalog.RecoveryFor(catalog.RecoveryAutomatic)
	cost, err := goodput.CheckpointCostFor("a3-megagpu-8g", 128, goodput.Checkpoint{SizeGiB: 1000, Target: catalog.CheckpointLustre, LustreThroughput: 1000, LustreCapacityGiB: 36000, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := goodput.Compute(goodput.Params{Nodes: 128, Spares: 2, JobLength: 720 * time.Hour, NodeMTBI: mtbi,
		CheckpointPause: cost.Pause, CheckpointPersist: cost.Persist,
		Detect: auto.Detect, Swap: auto.Swap, Repair: auto.Repair, Restart: auto.Restart})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: env.Config(plan(`  machine_type        = "a3-megagpu-8g"
  nodes               = 128
  spares              = 2
  job_length_hours    = 720
  checkpoint_storage  = "lustre"
  checkpoint_size_gib = 1000
  lustre_throughput   = 1000
  lustre_capacity_gib = 36000
  async_checkpoints   = true
`)),
			Check: resource.ComposeAggregateTestCheckFunc(
				near("job_mtbf_hours", 54*24/419.0*16, 1e-6),
				near("persist_seconds", 30.542, 0.001),
				near("pause_seconds", cost.Pause.Seconds(), 1e-9),
				resource.TestCheckResourceAttr(addr, "recovery", "automatic"),
				near("detect_minutes", 1, 0),
				near("repair_minutes", 20, 0),
				near("goodput", want.Goodput, 1e-12),
				near("expected_interruptions", want.Interruptions, 1e-9),
				near("lost_rework_hours", want.Lost.Rework.Hours(), 1e-9),
				near("lost_recovery_hours", want.Lost.Recovery.Hours(), 1e-9),
				// The target: ≥ 97% at 1,024 GPUs with automatic repair and async checkpoints.
				atLeast("goodput", 0.97),
				// Young/Daly on the 16.4 ms pause: √(2 × 0.016384 × 178,162) ≈ 76.4 s,
				// above the 30.5 s persist time that bounds it from below.
				near("checkpoint_interval_minutes", 76.4/60, 0.1/60),
				near("optimal_interval_minutes", want.OptimalInterval.Minutes(), 1e-9),
				resource.TestMatchResourceAttr(addr, "reliability_source", acctest.ErrorMatching(`Llama 3: 419 unexpected interruptions`)),
				resource.TestCheckResourceAttr(addr, "warnings.#", "0"),
				resource.TestCheckResourceAttrSet(addr, "best_spares"),
				noAPICalls(env),
			),
		}},
	})
}

// Young/Daly by hand, with every figure given: one node with a 10,000 s MTBF
// (2.7778 h) and a 50 s checkpoint has T* = √(2·50·10,000) = 1,000 s =
// 16.667 min; an 8-hour interval is far from it and says so.
func TestAccGoodputPlan_handComputed(t *testing.T) {
	env := acctest.New(t)
	body := `  machine_type            = "a3-highgpu-8g"
  nodes                   = 1
  job_length_hours        = 240
  node_mtbf_hours         = 2.7777777777777777
  checkpoint_cost_seconds = 50
  recovery                = "manual"
  detect_minutes          = 1
  repair_minutes          = 0
  restart_minutes         = 0.6666666666666666
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(plan(body)),
				Check: resource.ComposeAggregateTestCheckFunc(
					near("job_mtbf_hours", 10000.0/3600, 1e-9),
					near("optimal_interval_minutes", 1000.0/60, 1e-6),
					near("checkpoint_interval_minutes", 1000.0/60, 1e-6),
					resource.TestCheckResourceAttr(addr, "reliability_source", "given"),
					near("swap_minutes", 15, 0), // from the manual regime
					// First-order Young/Daly waste 50/1,000 + 1,000/20,000 + 100/10,000 = 11%;
					// the exact plan is within a point of it.
					near("goodput", 0.89, 0.01),
					// 240 h of wall time, down 100 s per interruption every 10,000 s of running:
					// 240 × 3,600 / 10,100 ≈ 85.5 interruptions.
					near("expected_interruptions", 240*3600/10100.0, 0.01),
					resource.TestCheckResourceAttr(addr, "warnings.#", "1"),
					resource.TestMatchResourceAttr(addr, "warnings.0", acctest.ErrorMatching(`below 90%`)),
				),
			},
			{
				Config: env.Config(plan(body + "  checkpoint_interval_minutes = 480\n")),
				Check: resource.ComposeAggregateTestCheckFunc(
					near("checkpoint_interval_minutes", 480, 0),
					resource.TestMatchResourceAttr(addr, "warnings.0", acctest.ErrorMatching(`checkpoint interval 8h0m0s is far from the optimum 16m40s`)),
					noAPICalls(env),
				),
			},
		},
	})
}

// Synchronous checkpoints of a large model to a bucket from few nodes take
// minutes, and the plan warns: 2,000 GiB over 4 VMs at 4,624.59 MB/s each is
// ≈ 116 s per checkpoint.
func TestAccGoodputPlan_slowBucketWarns(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: env.Config(plan(`  machine_type        = "a3-megagpu-8g"
  nodes               = 4
  job_length_hours    = 168
  recovery            = "manual"
  checkpoint_storage  = "bucket"
  checkpoint_size_gib = 2000
`)),
			Check: resource.ComposeAggregateTestCheckFunc(
				near("pause_seconds", 116.10, 0.01),
				near("persist_seconds", 0, 0),
				resource.TestMatchResourceAttr(addr, "warnings.0", acctest.ErrorMatching(`each synchronous checkpoint to bucket pauses training for 1m56s`)),
				noAPICalls(env),
			),
		}},
	})
}

// Inputs known only after apply (here the node count of another resource)
// are not checked early; the plan is read once they are known.
func TestAccGoodputPlan_unknownUntilApply(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: env.Config(`
resource "terraform_data" "partition" {
  input = 2048
}
` + plan(`  machine_type            = "a3-megagpu-8g"
  nodes                   = terraform_data.partition.output
  job_length_hours        = 720
  checkpoint_cost_seconds = 30
`)),
			Check: resource.ComposeAggregateTestCheckFunc(
				// 2,048 a3-mega nodes = 16,384 H100s: Llama 3's 54 × 24 / 419 ≈ 3.093 h.
				near("job_mtbf_hours", 54*24/419.0, 1e-6),
				atLeast("best_spares", 1),
				noAPICalls(env),
			),
		}},
	})
}
