package recipejob_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// recipeConfig is a job with a recipe and extra attributes of the test's choosing.
func recipeConfig(cluster, name, partition, model, size, mode, extra string) string {
	return `
resource "hypercompute_recipe_job" "test" {
  cluster   = "` + cluster + `"
  name      = "` + name + `"
  partition = "` + partition + `"
  recipe = {
    model = "` + model + `"
    size  = "` + size + `"
    mode  = "` + mode + `"
  }
` + extra + `
}
`
}

// Input that is wrong whatever the cluster is refused at plan, naming the attribute, before any
// API call: no cluster even exists in this test's cloud.
func TestAccRecipeJob_invalidInput(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cfg := func(model, size, mode, extra string) string {
		return env.Config(recipeConfig(cluster, "train", "cpu", model, size, mode, extra))
	}
	cases := []struct{ name, body, want string }{
		{"unknown model", cfg("gpt-9", "2m", "pretrain", ""), `recipe\.model: .*"gpt-9"`},
		{"unknown size", cfg("tiny-gpt", "70b", "pretrain", ""), `recipe\.size: .*"70b"`},
		{"unknown mode", cfg("tiny-gpt", "2m", "distill", ""), `recipe\.mode`},
		{"mode without resume_from", cfg("tiny-gpt", "2m", "continued_pretrain", ""),
			`checkpoint\.resume_from: mode "continued_pretrain" starts from trained weights`},
		{"interval neither a duration nor auto", cfg("tiny-gpt", "2m", "pretrain", `  checkpoint = { interval = "often" }`),
			`checkpoint\.interval: "often" is neither a duration`},
		{"relative checkpoint directory", cfg("tiny-gpt", "2m", "pretrain", `  checkpoint = { directory = "ckpt" }`),
			`checkpoint\.directory: "ckpt" is not a clean absolute path`},
		{"bad job name", env.Config(recipeConfig(cluster, "9 lives", "cpu", "tiny-gpt", "2m", "pretrain", "")), `name: job name "9 lives" is invalid`},
		{"not a cluster id", env.Config(recipeConfig("hcx", "train", "cpu", "tiny-gpt", "2m", "pretrain", "")), `cluster: "hcx" is not a training cluster id`},
		{"bad wait_for", cfg("tiny-gpt", "2m", "pretrain", `  wait_for = "forever"`), `wait_for`},
		{"restart backoff over an hour", cfg("tiny-gpt", "2m", "pretrain", `  restart_policy = { backoff = "2h" }`),
			`restart_policy\.backoff: 2h is outside 0s to 1h`},
		{"restart backoff not a duration", cfg("tiny-gpt", "2m", "pretrain", `  restart_policy = { backoff = "soon" }`),
			`restart_policy\.backoff: "soon" is not a duration`},
		{"negative max_restarts", cfg("tiny-gpt", "2m", "pretrain", `  restart_policy = { max_restarts = -1 }`),
			`restart_policy\.max_restarts`},
		{"rl on the CPU recipe", cfg("tiny-gpt", "2m", "rl", ""),
			`recipe\.mode: tiny-gpt 2m has no mode "rl"; modes: continued_pretrain, pretrain, sft\. The CPU recipe \(tiny-gpt\) has no RL mode`},
		{"rl without a published recipe", cfg("gemma2", "9b", "rl", ""), `recipe\.mode: gemma2 9b has no mode "rl"[\s\S]*NeMo-RL publishes no GRPO recipe`},
		{"unknown precision", cfg("llama3.1", "8b", "pretrain", `  overrides = { precision = "fp16" }`), `overrides\.precision value must be one of`},
		{"a precision no family runs the recipe in", cfg("tiny-gpt", "2m", "pretrain", `  overrides = { precision = "fp8" }`),
			`overrides\.precision: precision = "fp8": machine profile cpu has no fp8 training recipe; it runs fp32`},
		{"fp8 on a recipe whose launcher has no precision switch", cfg("gemma2", "9b", "pretrain", `  overrides = { precision = "fp8" }`),
			`overrides\.precision: precision = "fp8"[\s\S]*only Megatron-Bridge recipes switch precision`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}

// Checks that need the partition read its desired configuration from the controller's metadata
// at plan, with read calls only.
func TestAccRecipeJob_partitionChecks(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjp", false)
	env.ResetCalls()
	cfg := func(partition, model, size, mode, extra string) string {
		return env.Config(recipeConfig(cluster, "train", partition, model, size, mode, extra))
	}
	cases := []struct{ name, body, want string }{
		{"a partition the cluster does not have", cfg("h200", "tiny-gpt", "2m", "pretrain", "  checkpoint = { interval = \"1m\" }"),
			`partition: cluster rjp has no partition "h200" \(its partitions: a3h, a3m, cpu, l4\), and no hypercompute_node_partition of that name is planned in this operation`},
		{"more nodes than the partition holds", cfg("cpu", "tiny-gpt", "2m", "pretrain", "  nodes = 3\n  checkpoint = { interval = \"1m\" }"),
			`nodes: the job needs 3 nodes, but partition cpu holds at most 2`},
		{"a GPU recipe on a CPU partition", cfg("cpu", gpuModel, gpuSize, "pretrain", ""), `recipe: [\s\S]*\(partition cpu runs n2-standard-4\)`},
		{"a GPU recipe the family has none of", cfg("l4", gpuModel, gpuSize, "pretrain", ""), `recipe: [\s\S]*no recipe for machine profile "g2"`},
		{"auto without failure figures", cfg("cpu", "tiny-gpt", "2m", "pretrain", ""), `checkpoint\.interval: "auto" needs the expected time between failures`},
		// fp8 is a precision Llama 3.1 8B pretraining runs in, but not on A3 High (the machine
		// catalog's training precisions): only the partition tells.
		{"fp8 on a3-high", cfg("a3h", gpuModel, gpuSize, "pretrain", `  overrides = { precision = "fp8" }`),
			`overrides\.precision: precision = "fp8": machine profile a3-high has no fp8 training recipe; it runs bf16`},
		// Llama 3.1 8B checkpoints 8.03 B × 14 bytes = 104.7 GiB; one a3-highgpu-8g writes to the
		// bucket at gcsfuse's 4,624.59 MB/s: C = 24.3 s.
		{"interval shorter than the checkpoint cost", cfg("a3h", gpuModel, gpuSize, "pretrain", `  checkpoint = { directory = "/gcs/ckpt/train", interval = "10s" }`),
			`checkpoint\.interval: 10s is shorter than the checkpoint cost C = 24\.3 s: llama3\.1/8b/pretrain@a3-high checkpoints 104\.7 GiB[\s\S]*bucket rjp-ckpt[\s\S]*at least "25s"`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoMutations(t, "plans of jobs the partition cannot run")
}

// Recipes of the catalog the tests name.
const (
	gpuModel = "llama3.1"
	gpuSize  = "8b"
)

// The plan-time checks let through what is right: fp8 on a family that trains in it, an interval
// of at least the checkpoint cost, and no max_steps at all (the recipe's default applies).
func TestAccRecipeJob_planAcceptsValid(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjv", false)
	env.ResetCalls()
	for _, tc := range []struct{ name, partition, mode, extra string }{
		{"fp8 on a3-mega", "a3m", "pretrain", `  overrides = { precision = "fp8" }`},
		{"bf16 on a3-mega's fp8 recipe", "a3m", "pretrain", `  overrides = { precision = "bf16" }`},
		{"interval over the checkpoint cost", "a3h", "pretrain", `  checkpoint = { directory = "/gcs/ckpt/train", interval = "25s" }`},
		{"auto on the bucket", "a3h", "pretrain", `  checkpoint = { directory = "/gcs/ckpt/train" }`},
		{"no max_steps", "a3h", "sft", ""},
		{"rl", "a3h", "rl", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config: env.Config(recipeConfig(cluster, "train", tc.partition, gpuModel, gpuSize, tc.mode, tc.extra)), PlanOnly: true, ExpectNonEmptyPlan: true,
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("generation"), knownvalue.NotNull()),
					}},
				}},
			})
		})
	}
	if c := env.Calls(); c.Mutating != 0 {
		t.Fatalf("plans made %d mutating calls: %v", c.Mutating, c.Methods)
	}
}

// On Managed Lustre (the default checkpoint directory of a cluster that has it) the checkpoint
// cost comes from the instance's tier × capacity: 104.7 GiB of Llama 3.1 8B at 500 MBps/TiB ×
// 18,000 GiB = 8,789 MB/s is C = 12.8 s.
func TestAccRecipeJob_lustreCheckpointCost(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjl", true)
	env.ResetCalls()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:      env.Config(recipeConfig(cluster, "train", "a3h", gpuModel, gpuSize, "pretrain", `  checkpoint = { interval = "12s" }`)),
			PlanOnly:    true,
			ExpectError: acctest.ErrorMatching(`checkpoint\.interval: 12s is shorter than the checkpoint cost C = 12\.8 s[\s\S]*Managed Lustre lfs \(18000 GiB at 500 MBps/TiB\)`),
		}, {
			Config:             env.Config(recipeConfig(cluster, "train", "a3h", gpuModel, gpuSize, "pretrain", `  checkpoint = { interval = "13s" }`)),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	if c := env.Calls(); c.Mutating != 0 {
		t.Fatalf("plans made %d mutating calls: %v", c.Mutating, c.Methods)
	}
}

// A GPU recipe on a GPU partition plans with the catalog's defaults for the family: its node
// count, and the Young/Daly interval ("auto") from the family's failure figures.
func TestAccRecipeJob_gpuPlan(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjg", true)
	env.ResetCalls()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             env.Config(recipeConfig(cluster, "llama8b", "a3h", gpuModel, gpuSize, "pretrain", "  overrides = { max_steps = 1000 }")),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("nodes"), knownvalue.Int64Exact(1)),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("checkpoint").AtMapKey("interval"), knownvalue.StringExact("auto")),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("checkpoint").AtMapKey("directory"), knownvalue.StringExact("/lustre/checkpoints/llama8b")),
			}},
		}},
	})
	if c := env.Calls(); c.Mutating != 0 {
		t.Fatalf("the plan made %d mutating calls: %v", c.Mutating, c.Methods)
	}
}
