package recipejob_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// customConfig is a job running the team's own program: recipe.custom's attributes, then the
// job's other attributes.
func customConfig(cluster, name, partition, custom, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_recipe_job" "test" {
  cluster   = %q
  name      = %q
  partition = %q
  recipe = {
    custom = {
%s
    }
  }
%s
}
`, cluster, name, partition, custom, extra)
}

// What is wrong with a custom program whatever the cluster is refused at plan, naming the
// attribute, with no API call: no cluster exists in this test's cloud.
func TestAccRecipeJob_customInvalidInput(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cfg := func(custom, extra string) string {
		return env.Config(customConfig(cluster, "own", "cpu", custom, extra))
	}
	const cmd = `      command = "python3 /home/team/train.py"`
	cases := []struct{ name, body, want string }{
		{"neither command nor script", cfg(`      gpus_per_node = 0`, ""), `recipe\.custom: set exactly one of command and script`},
		{"both command and script", cfg(cmd+"\n      script = \"#!/bin/sh\\ntrue\\n\"", ""), `recipe\.custom: set exactly one of command and script`},
		{"a script without #!", cfg(`      script = "import torch\n"`, ""), `recipe\.custom\.script: the script must start with a #! line`},
		{"a script too large for the metadata", cfg(`      script = "#!/bin/sh\n${format("%0200000d", 0)}"`, ""),
			`recipe\.custom\.script: 200010 bytes is more than the 196608`},
		{"a model next to custom", env.Config(strings.Replace(customConfig(cluster, "own", "cpu", cmd, ""), "recipe = {", "recipe = {\n    model = \"tiny-gpt\"", 1)),
			`recipe\.model: a custom program names no catalog recipe`},
		{"a catalog recipe without its size", env.Config(`
resource "hypercompute_recipe_job" "test" {
  cluster   = "` + cluster + `"
  name      = "own"
  partition = "cpu"
  recipe    = { model = "tiny-gpt", mode = "pretrain" }
}
`), `recipe\.size: a catalog recipe needs model, size and mode[\s\S]*set recipe\.custom instead`},
		{"an environment variable the launch sets", cfg(cmd+"\n      environment = { HYPERCOMPUTE_CHECKPOINT_DIR = \"/tmp\" }", ""),
			`recipe\.custom\.environment: HYPERCOMPUTE_CHECKPOINT_DIR is set by the job's launch`},
		{"a rank variable", cfg(cmd+"\n      environment = { WORLD_SIZE = \"1\" }", ""), `recipe\.custom\.environment: WORLD_SIZE is set by the job's launch`},
		{"an invalid variable name", cfg(cmd+"\n      environment = { \"1X\" = \"1\" }", ""), `recipe\.custom\.environment: "1X" is not a valid environment variable name`},
		{"a catalog recipe's hyperparameters", cfg(cmd, `  overrides = { hyperparameters = { learning_rate = "1" } }`),
			`overrides\.hyperparameters: belongs to catalog recipes, not a custom program: pass them to the program as arguments`},
		{"a catalog recipe's container override", cfg(cmd, `  overrides = { container_image = "nvcr.io/nvidia/pytorch:24.12-py3" }`),
			`overrides\.container_image: belongs to catalog recipes[\s\S]*recipe\.custom\.container_image`},
		{"not a container image", cfg(cmd+"\n      container_image = \"Not An Image\"", ""), `recipe\.custom\.container_image`},
		{"negative GPUs", cfg(cmd+"\n      gpus_per_node = -1", ""), `recipe\.custom\.gpus_per_node`},
		{"zero FLOPs per step", cfg(cmd+"\n      flops_per_step = 0", ""), `recipe\.custom\.flops_per_step`},
		{"a time limit under the signal lead", cfg(cmd, `  time_limit = "2m"`), `time_limit: 2m is shorter than 3m: the job is sent SIGUSR1 2m before its time limit`},
		{"a time limit that is no duration", cfg(cmd, `  time_limit = "soon"`), `time_limit: "soon" is not a duration`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoCalls(t, "invalid custom programs")
}

// What the partition decides for a custom program is checked at plan with read calls only: GPUs
// beyond the machine type's, GPUs or a container on a machine type without GPUs, more nodes than
// the partition holds.
func TestAccRecipeJob_customPartitionChecks(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjcp", false)
	env.ResetCalls()
	const cmd = `      command = "python3 /home/team/train.py"`
	cfg := func(partition, custom, extra string) string {
		return env.Config(customConfig(cluster, "own", partition, custom, extra+"\n  checkpoint = { interval = \"5m\" }"))
	}
	for _, tc := range []struct{ name, body, want string }{
		{"more GPUs than the machine type has", cfg("l4", cmd+"\n      gpus_per_node = 4", ""),
			`recipe\.custom\.gpus_per_node: 4 GPUs: partition l4 runs g2-standard-24, which has 2`},
		{"GPUs on a CPU partition", cfg("cpu", cmd+"\n      gpus_per_node = 1", ""),
			`recipe\.custom\.gpus_per_node: 1 GPUs: partition cpu runs n2-standard-4, which has no GPUs`},
		{"a container on a CPU partition", cfg("cpu", cmd+"\n      container_image = \"nvcr.io/nvidia/pytorch:24.12-py3\"", ""),
			`recipe\.custom\.container_image: partition cpu runs n2-standard-4, which has no GPUs: containers run with enroot and pyxis`},
		{"more nodes than the partition holds", cfg("a3h", cmd, "  nodes = 3"), `nodes: the job needs 3 nodes, but partition a3h holds at most 2`},
		{"auto on a CPU partition", env.Config(customConfig(cluster, "own", "cpu", cmd, "")), `checkpoint\.interval: "auto" needs the expected time between failures`},
	} {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoMutations(t, "plans of custom programs the partition cannot run")
}

// A custom program's life against the API with a fake controller agent: the plan resolves it on
// a GPU partition (all 8 GPUs, one task per GPU, the GPUs' peak for MFU, the time limit in
// minutes), the controller's key holds a job the agent's renderer turns into a batch script that
// runs the program in its container with the checkpoint directory exported; the report fills
// progress and MFU; import reads it back; a changed script replaces the job.
func TestAccRecipeJob_custom(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjc", true)
	startFakeJobs(t, env, "rjc")
	script := func(lr string) string {
		return `      script          = "#!/usr/bin/python3\nimport hypercompute\nprint('lr ` + lr + `')\n"
      container_image = "nvcr.io/nvidia/pytorch:24.12-py3"
      environment     = { DATA = "/lustre/data" }
      flops_per_step  = 3.5e15`
	}
	extra := `  overrides  = { max_steps = 40 }
  time_limit = "12h"
  wait_for   = "completed"`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(customConfig(cluster, "own", "a3h", script("0.1"), extra)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "state", "COMPLETED"),
					resource.TestCheckResourceAttr(addr, "step", "40"),
					resource.TestCheckResourceAttr(addr, "mfu", "0.31"),
					resource.TestCheckResourceAttr(addr, "nodes", "1"),
					resource.TestCheckResourceAttr(addr, "recipe.custom.gpus_per_node", "8"), // all of a3-highgpu-8g's
					resource.TestCheckResourceAttr(addr, "checkpoint.interval", "auto"),
					resource.TestCheckResourceAttr(addr, "checkpoint.directory", "/lustre/checkpoints/own"),
					resource.TestCheckNoResourceAttr(addr, "recipe.model"),
					func(*terraform.State) error {
						j, ok := controllerJob(env, "rjc", "own")
						if !ok || j.Custom == nil {
							return fmt.Errorf("the controller holds no custom job: %+v", j)
						}
						if c := j.Custom; c.GPUsPerNode != 8 || j.TasksPerNode != 8 || c.PeakTFLOPS != 989*8 || c.FLOPsPerStep != 3.5e15 ||
							j.TimeLimit != 720 || j.Profile != "a3-high" || j.ContainerImage != "nvcr.io/nvidia/pytorch:24.12-py3" ||
							j.Env["DATA"] != "/lustre/data" || j.Model != "" || j.MaxSteps != 40 || !j.Checkpoint.Auto {
							return fmt.Errorf("the controller holds %+v (custom %+v)", j, *j.Custom)
						}
						// What the agent submits: the recipes' batch script around the program.
						s, err := recipes.Render(j)
						if err != nil {
							return fmt.Errorf("the agent could not render the job: %v", err)
						}
						for _, want := range []string{"#SBATCH --gpus-per-node=8", "#SBATCH --time=720", "#SBATCH --requeue", "#SBATCH --signal=B:USR1@120",
							"export HYPERCOMPUTE_CHECKPOINT_DIR='/lustre/checkpoints/own'", "export HYPERCOMPUTE_CHECKPOINT_AUTO='1'",
							"export HYPERCOMPUTE_PEAK_TFLOPS='7912'", "--container-image=\"$SQSH\"", "export DATA='/lustre/data'"} {
							if !strings.Contains(s.Body, want) {
								return fmt.Errorf("the batch script lacks %q:\n%s", want, s.Body)
							}
						}
						return nil
					},
				),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "rjc/own",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for", "timeouts"},
			},
			{
				Config: env.Config(customConfig(cluster, "own", "a3h", script("0.2"), extra)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(*terraform.State) error {
					if j, _ := controllerJob(env, "rjc", "own"); j.Custom == nil || !strings.Contains(j.Custom.Script, "lr 0.2") {
						return fmt.Errorf("the controller holds the old program: %+v", j.Custom)
					}
					return nil
				},
			},
		},
	})
}
