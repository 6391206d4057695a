package recipejob_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// controllerJob is the job the provider wrote under its key on the controller.
func controllerJob(env *acctest.Env, cluster, name string) (recipes.Job, bool) {
	var j recipes.Job
	v, ok := env.ControllerKey(cluster, cc.JobKey(name))
	return j, ok && json.Unmarshal([]byte(v), &j) == nil
}

// The job's lifecycle against the API, with a fake controller agent: create waits for
// completion and records what the report says; refresh keeps the final state; import reads the
// spec back from the controller's key; a spec change replaces the job (the plan says so) and the
// replaced running job is cancelled; destroy waits until the controller reports it gone.
func TestAccRecipeJob_lifecycle(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rj", false)
	fake := startFakeJobs(t, env, "rj")
	cfg := func(maxSteps int, waitFor string) string {
		return env.Config(jobConfig(cluster, "train", "cpu", fmt.Sprintf(`
  overrides  = { max_steps = %d }
  checkpoint = { interval = "30s", keep_last = 2 }
  wait_for   = %q
`, maxSteps, waitFor)))
	}
	var firstGen string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             env.CheckControllerKeyGone("rj", cc.JobKey("train")),
		Steps: []resource.TestStep{
			{
				Config: cfg(40, "completed"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", cluster+"/jobs/train"),
					resource.TestCheckResourceAttr(addr, "state", "COMPLETED"),
					resource.TestCheckResourceAttr(addr, "job_id", "1"),
					resource.TestCheckResourceAttr(addr, "step", "40"),
					resource.TestCheckResourceAttr(addr, "last_checkpoint_step", "40"),
					resource.TestCheckResourceAttr(addr, "checkpoint.directory", "/home/checkpoints/train"),
					resource.TestCheckResourceAttr(addr, "checkpoint.interval", "30s"),
					resource.TestCheckResourceAttr(addr, "checkpoint_interval", "30s"),
					resource.TestCheckResourceAttr(addr, "run_dir", "/home/.hypercompute/jobs/train"),
					resource.TestCheckResourceAttr(addr, "tensorboard_dir", "/home/.hypercompute/jobs/train/tensorboard"),
					resource.TestCheckResourceAttr(addr, "log_path", "/home/.hypercompute/jobs/train/slurm-1.out"),
					resource.TestCheckResourceAttr(addr, "end_time", "2026-12-01T21:01:00Z"),
					resource.TestCheckResourceAttr(addr, "mfu", "0.31"), // the trainer's progress, as the fake agent reports it
					resource.TestCheckResourceAttrSet(addr, "nodes"),
					func(s *terraform.State) error {
						a := s.RootModule().Resources[addr].Primary.Attributes
						first, _ := strconv.ParseFloat(a["first_loss"], 64)
						last, _ := strconv.ParseFloat(a["last_loss"], 64)
						if !(last < first) {
							return fmt.Errorf("last_loss %v is not below first_loss %v", last, first)
						}
						j, ok := controllerJob(env, "rj", "train")
						if !ok {
							return fmt.Errorf("no job key on the controller")
						}
						firstGen = j.Generation
						if j.Checkpoint.IntervalSeconds != 30 || j.Checkpoint.KeepLast != 2 || j.MaxSteps != 40 || j.Profile != recipes.ProfileCPU ||
							j.Partition != "cpu" || j.Cluster != "rj" || a["generation"] != j.Generation || a["nodes"] != strconv.Itoa(j.Nodes) {
							return fmt.Errorf("the controller holds %+v; state %v", j, a)
						}
						return nil
					},
				),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "rj/train",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for", "timeouts"},
			},
			{
				// A new spec is a new job: the plan says replace.
				Config: cfg(60, "running"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				PreConfig: func() { fake.Hold(true) },
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "state", "RUNNING"),
					resource.TestCheckResourceAttr(addr, "job_id", "2"),
					func(s *terraform.State) error {
						j, _ := controllerJob(env, "rj", "train")
						if j.Generation == firstGen || j.MaxSteps != 60 {
							return fmt.Errorf("after the replacement the controller holds generation %s max_steps %d", j.Generation, j.MaxSteps)
						}
						return nil
					},
				),
			},
			{
				// Changing wait_for changes nothing on the cluster: an update in place.
				Config: cfg(60, "submitted"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
			},
			{
				// Replacing the running job cancels it before the new one is written.
				Config: cfg(80, "running"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(*terraform.State) error {
					if got := fake.Cancelled(); !slices.Equal(got, []string{"train"}) {
						return fmt.Errorf("cancelled %v, want the replaced running job", got)
					}
					return nil
				},
			},
		},
	})
	if got := fake.Cancelled(); len(got) != 2 {
		t.Fatalf("destroy did not cancel the running job: cancelled %v", got)
	}
}

// The checkpoint directory defaults to the cluster's Lustre when it has one.
func TestAccRecipeJob_checkpointOnLustre(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjl", true)
	startFakeJobs(t, env, "rjl")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: env.Config(jobConfig(cluster, "ft", "cpu", `
  overrides  = { max_steps = 10 }
  checkpoint = { interval = "2m" }
  wait_for   = "submitted"
`)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "checkpoint.directory", "/lustre/checkpoints/ft"),
				resource.TestCheckResourceAttr(addr, "checkpoint.keep_last", "3"),
				resource.TestCheckResourceAttr(addr, "job_id", "1"),
			),
		}},
	})
}

// A job whose key was removed behind Terraform's back is gone: the next plan submits it again.
func TestAccRecipeJob_disappears(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "rjd", false)
	startFakeJobs(t, env, "rjd")
	cfg := env.Config(jobConfig(cluster, "gone", "cpu", `
  overrides  = { max_steps = 10 }
  checkpoint = { interval = "1m" }
  wait_for   = "submitted"
`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             cfg,
			Check:              env.RemoveControllerKey("rjd", cc.JobKey("gone")),
			ExpectNonEmptyPlan: true,
		}},
	})
}
