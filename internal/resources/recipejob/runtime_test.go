package recipejob_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// runtimeBase is a real cluster on the local runtime: network, Filestore /home, the controller
// with the agent built from this tree, and a CPU partition of two static nodes.
func runtimeBase(agentPath, agentSHA string) string {
	return acctest.RuntimeClusterConfig("hrj", agentPath, agentSHA) + acctest.RuntimeCPUPartitionConfig
}

func runtimeJob(name string, maxSteps int, interval, waitFor string) string {
	return acctest.RuntimeTinyGPTJob(name, "cpu", fmt.Sprintf(`  overrides  = { max_steps = %d }
  checkpoint = { interval = %q }
  wait_for   = %q
`, maxSteps, interval, waitFor))
}

// The CPU recipe and a custom program on the local runtime, real Slurm and real PyTorch, one
// cluster for every step:
// (1) a short job on two nodes runs to COMPLETED with a falling loss and a checkpoint, refresh
// and import agree; (2) a long job requeued with scontrol, then one of its nodes reset through
// the Compute API, resumes each time from its newest checkpoint (the step counter continues, the
// work lost stays under one interval), and after a trainer rank is killed (an OOM, a segfault) its
// restart policy restarts the step inside the same Slurm job; (3) removing the job cancels it.
// Between (1) and (2) the team's own PyTorch program (examples/…/train_regression.py) checkpoints
// on USR1, is requeued by its batch script and resumes from that checkpoint to completion.
func TestAccRecipeJob_localRuntime(t *testing.T) {
	acctest.RequireTorch(t)
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	base := runtimeBase(agentPath, agentSHA)
	exec := env.RunOn
	slurm := func(cmd string) (string, error) { return env.Slurm(30*time.Second, "hrj-controller", cmd) }
	report := func(name string) (cc.JobReport, recipes.Progress) { return env.JobReport("hrj-controller", name) }
	diagnose := func(name string) string {
		out, _ := slurm("squeue; sinfo -N; tail -n 20 /home/.hypercompute/jobs/" + name + "/slurm-*.out")
		r, p := report(name)
		return fmt.Sprintf("report %+v progress %+v\n%s", r, p, out)
	}
	waitUntil := func(name, what string, timeout time.Duration, ok func(cc.JobReport, recipes.Progress) bool) (cc.JobReport, recipes.Progress, error) {
		deadline := time.Now().Add(timeout)
		for {
			r, p := report(name)
			if ok(r, p) {
				return r, p, nil
			}
			if time.Now().After(deadline) {
				return r, p, fmt.Errorf("timed out after %s waiting for %s\n%s", timeout, what, diagnose(name))
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	const interval = 10 * time.Second
	var longID int
	// resumedAt is the step the latest restart resumed from: the next interruption waits for a
	// checkpoint past it, so it costs a checkpoint of this run.
	resumedAt := 0
	// resumed checks one interruption: the job comes back RUNNING with one more restart, its first
	// step after the restart continues from the newest checkpoint before it, and the lost work
	// stays under one interval.
	resumed := func(interrupt func(cc.JobReport) error) func(*terraform.State) error {
		return func(*terraform.State) error {
			before, bp, err := waitUntil("long", "a checkpoint of the running job", 90*time.Second, func(r cc.JobReport, p recipes.Progress) bool {
				return r.State == "RUNNING" && p.Restarts == r.Requeues && p.LastCheckpointStep > resumedAt
			})
			if err != nil {
				return err
			}
			longID = before.JobID
			if err := interrupt(before); err != nil {
				return err
			}
			_, ap, err := waitUntil("long", "the job to resume", 2*time.Minute, func(r cc.JobReport, p recipes.Progress) bool {
				return r.State == "RUNNING" && p.Restarts == bp.Restarts+1
			})
			if err != nil {
				return err
			}
			// The trainer says where each run starts; the newest run must start from the
			// checkpoint, not from step 0.
			out, err := exec(30*time.Second, "hrj-controller", "bash", "-c", "grep -o 'resumed from .* at step [0-9]*' "+before.LogPath+" | tail -n 1")
			if err != nil {
				return err
			}
			var at int
			if i := strings.LastIndex(out, " at step "); i < 0 {
				return fmt.Errorf("the restarted run did not resume from a checkpoint (log: %q)\n%s", out, diagnose("long"))
			} else if at, _ = strconv.Atoi(strings.TrimSpace(out[i+len(" at step "):])); at < bp.LastCheckpointStep || at == 0 {
				return fmt.Errorf("the restarted run resumed at step %d, behind the checkpoint at step %d taken before the interruption", at, bp.LastCheckpointStep)
			}
			resumedAt = at
			if ap.Step < at {
				return fmt.Errorf("the job reports step %d after resuming at step %d", ap.Step, at)
			}
			lost := time.Duration((ap.LostSeconds - bp.LostSeconds) * float64(time.Second))
			if lost < 0 || lost >= interval {
				return fmt.Errorf("the restart lost %s of work; the checkpoint interval is %s", lost, interval)
			}
			return nil
		}
	}
	requeue := resumed(func(r cc.JobReport) error {
		_, err := slurm("scontrol requeue " + strconv.Itoa(r.JobID))
		return err
	})
	resetNode := resumed(func(r cc.JobReport) error {
		nodes, err := cc.ExpandHostlist(r.Nodes)
		if err != nil || len(nodes) == 0 {
			return fmt.Errorf("the job runs on %q: %v", r.Nodes, err)
		}
		cl := env.Clients()
		op, err := cl.Instances.Reset(context.Background(), &computepb.ResetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: nodes[len(nodes)-1]})
		if err == nil {
			_, err = cl.WaitCompute(context.Background(), op)
		}
		return err
	})
	// killRank is what an OOM, a segfault or an NCCL abort looks like: one trainer rank dies with
	// SIGKILL. The job's restart policy restarts the step inside the same Slurm job, from the
	// newest checkpoint, with no person and no requeue.
	killRank := func(*terraform.State) error {
		before, bp, err := waitUntil("long", "a checkpoint of the running job", 90*time.Second, func(r cc.JobReport, p recipes.Progress) bool {
			return r.State == "RUNNING" && p.LastCheckpointStep > resumedAt
		})
		if err != nil {
			return err
		}
		nodes, err := cc.ExpandHostlist(before.Nodes)
		if err != nil || len(nodes) == 0 {
			return fmt.Errorf("the job runs on %q: %v", before.Nodes, err)
		}
		if _, err := exec(30*time.Second, nodes[0], "pkill", "-9", "-n", "-f", "jobs/long/.*train.py"); err != nil {
			return err
		}
		after, ap, err := waitUntil("long", "the step to restart by itself", 2*time.Minute, func(r cc.JobReport, p recipes.Progress) bool {
			return r.State == "RUNNING" && r.AutoRestarts == before.AutoRestarts+1 && p.Restarts == bp.Restarts+1 && p.Step > bp.LastCheckpointStep
		})
		if err != nil {
			return err
		}
		if after.JobID != before.JobID || after.Requeues != before.Requeues {
			return fmt.Errorf("the crash was handled by Slurm (job %d → %d, requeues %d → %d), not by the restart policy inside the job", before.JobID, after.JobID, before.Requeues, after.Requeues)
		}
		if !strings.Contains(after.LastRestartCause, "exit") {
			return fmt.Errorf("last_restart_cause %q does not give the step's exit", after.LastRestartCause)
		}
		lost := time.Duration((ap.LostSeconds - bp.LostSeconds) * float64(time.Second))
		if lost < 0 || lost >= interval {
			return fmt.Errorf("the automatic restart lost %s of work; the checkpoint interval is %s", lost, interval)
		}
		return nil
	}
	cancelled := func(*terraform.State) error {
		out, err := slurm("squeue -h -o %i; scontrol -o show job " + strconv.Itoa(longID))
		if err != nil {
			return err
		}
		if strings.Contains(out, strconv.Itoa(longID)+"\n") && !strings.Contains(out, "JobState=CANCELLED") {
			return fmt.Errorf("after destroying the job, Slurm still has it: %s", out)
		}
		if !strings.Contains(out, "JobState=CANCELLED") {
			return fmt.Errorf("Slurm does not show job %d cancelled: %s", longID, out)
		}
		return nil
	}
	// The team's own program (the documentation's example, a PyTorch linear regression using the
	// hypercompute helper module) on both nodes: USR1 to the batch shell — what Slurm sends before
	// the time limit and the agent on a host's stop notice — reaches the program, which saves a
	// checkpoint and stops; the job requeues itself and the next run resumes at that step and
	// completes, with restarts, lost work and MFU in the progress Terraform reads.
	const ownSteps, ownInterval = 300, 3 * time.Second
	ownJob := fmt.Sprintf(`
resource "hypercompute_recipe_job" "own" {
  cluster   = hypercompute_training_cluster.c.id
  partition = hypercompute_node_partition.cpu.name
  name      = "own"
  nodes     = 2
  recipe = {
    custom = {
      script         = file(%q)
      environment    = { STEP_SECONDS = "0.05" }
      flops_per_step = %d
    }
  }
  overrides  = { max_steps = %d }
  checkpoint = { interval = %q, keep_last = 2 }
  wait_for   = "running"
  timeouts   = { create = "4m", delete = "2m" }
}
`, exampleProgram(t), 6*256*64*2, ownSteps, formatSeconds(ownInterval))
	var ownID int
	ownStopsAndResumes := func(*terraform.State) error {
		before, bp, err := waitUntil("own", "a checkpoint of the custom program", 90*time.Second, func(r cc.JobReport, p recipes.Progress) bool {
			return r.State == "RUNNING" && p.LastCheckpointStep > 0 && p.Step > p.LastCheckpointStep
		})
		if err != nil {
			return err
		}
		ownID = before.JobID
		if _, err := slurm("scancel --batch --signal=USR1 " + strconv.Itoa(before.JobID)); err != nil {
			return err
		}
		after, ap, err := waitUntil("own", "the custom program to resume and complete", 3*time.Minute, func(r cc.JobReport, p recipes.Progress) bool {
			return r.State == "COMPLETED" || r.State == "FAILED" || r.State == "CANCELLED"
		})
		if err != nil {
			return err
		}
		log, err := exec(30*time.Second, "hrj-controller", "cat", before.LogPath)
		if err != nil {
			return err
		}
		if after.State != "COMPLETED" || after.JobID != before.JobID || !ap.Finished || ap.Step != ownSteps || ap.Restarts != 1 {
			return fmt.Errorf("the custom job ended %s (job %d → %d) at step %d of %d, finished %v, restarts %d; want COMPLETED after one restart\n%s",
				after.State, before.JobID, after.JobID, ap.Step, ownSteps, ap.Finished, ap.Restarts, log)
		}
		stopped := regexp.MustCompile(`rank 0 stopped by SIGUSR1 at step (\d+) after a checkpoint`).FindStringSubmatch(log)
		resumed := regexp.MustCompile(`rank \d resumed from /home/checkpoints/own/ckpt-(\d+) at step (\d+)`).FindAllStringSubmatch(log, -1)
		if stopped == nil || len(resumed) != 2 || !strings.Contains(log, "requeueing job "+strconv.Itoa(before.JobID)) {
			return fmt.Errorf("want the program stopped by USR1, the job requeued by its script and both ranks resumed:\n%s", log)
		}
		at, _ := strconv.Atoi(stopped[1])
		for _, r := range resumed {
			if r[2] != stopped[1] || at <= bp.LastCheckpointStep {
				return fmt.Errorf("resumed at step %s after stopping at step %s (checkpoint before the signal: step %d): the step counter must continue from the stop's checkpoint\n%s",
					r[2], stopped[1], bp.LastCheckpointStep, log)
			}
		}
		if ap.LostSeconds >= ownInterval.Seconds() || !(ap.LastLoss < ap.FirstLoss/10) || !(ap.MFU > 0) {
			return fmt.Errorf("progress after the restart: lost %.2f s (interval %s), loss %.4f → %.4f, MFU %g", ap.LostSeconds, ownInterval, ap.FirstLoss, ap.LastLoss, ap.MFU)
		}
		return nil
	}
	short := "hypercompute_recipe_job.short"
	longJob := acctest.RuntimeTinyGPTJob("long", "cpu", fmt.Sprintf(`  overrides      = { max_steps = 1000000 }
  checkpoint     = { interval = %q }
  restart_policy = { max_restarts = 2, backoff = "1s" }
  wait_for       = "running"
`, formatSeconds(interval)))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(base + runtimeJob("short", 30, "5s", "completed")),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(short, "state", "COMPLETED"),
					resource.TestCheckResourceAttr(short, "step", "30"),
					resource.TestCheckResourceAttr(short, "last_checkpoint_step", "30"),
					resource.TestCheckResourceAttr(short, "restarts", "0"),
					func(s *terraform.State) error {
						a := s.RootModule().Resources[short].Primary.Attributes
						first, _ := strconv.ParseFloat(a["first_loss"], 64)
						last, _ := strconv.ParseFloat(a["last_loss"], 64)
						if !(first > 0 && last < first) {
							return fmt.Errorf("the loss did not fall: first %v, last %v\n%s", first, last, diagnose("short"))
						}
						return nil
					},
				),
			},
			{
				ResourceName:            short,
				ImportState:             true,
				ImportStateId:           "hrj/short",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for", "timeouts"},
			},
			{
				Config: env.Config(base + ownJob),
				Check:  ownStopsAndResumes,
			},
			{
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hypercompute_recipe_job.own", "state", "COMPLETED"),
					resource.TestCheckResourceAttr("hypercompute_recipe_job.own", "step", strconv.Itoa(ownSteps)),
					resource.TestCheckResourceAttr("hypercompute_recipe_job.own", "restarts", "1"),
					resource.TestCheckResourceAttr("hypercompute_recipe_job.own", "last_checkpoint_step", strconv.Itoa(ownSteps)),
					resource.TestCheckResourceAttrWith("hypercompute_recipe_job.own", "job_id", func(v string) error {
						if v != strconv.Itoa(ownID) {
							return fmt.Errorf("job_id %s, want %d: one Slurm job, requeued", v, ownID)
						}
						return nil
					}),
					resource.TestCheckResourceAttrWith("hypercompute_recipe_job.own", "mfu", func(v string) error {
						if f, err := strconv.ParseFloat(v, 64); err != nil || !(f > 0 && f <= 1) {
							return fmt.Errorf("mfu %q, want in (0, 1]", v)
						}
						return nil
					}),
				),
			},
			{
				Config: env.Config(base + longJob),
				Check:  resource.ComposeAggregateTestCheckFunc(requeue, resetNode, killRank),
			},
			{
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hypercompute_recipe_job.long", "restarts", "3"),
					resource.TestCheckResourceAttr("hypercompute_recipe_job.long", "auto_restarts", "1"),
					resource.TestMatchResourceAttr("hypercompute_recipe_job.long", "last_restart_cause", regexp.MustCompile(`exit`)),
				),
			},
			{
				Config: env.Config(base),
				Check:  cancelled,
			},
		},
	})
}

func formatSeconds(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + "s" }

// exampleProgram is the path of the documentation's custom training program.
func exampleProgram(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", "resources", "hypercompute_recipe_job", "train_regression.py"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}
