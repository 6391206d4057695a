package recipejob_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// benchT lets a benchmark drive resource.Test, whose T needs Parallel (a no-op here).
type benchT struct{ *testing.B }

func (benchT) Parallel() {}

// BenchmarkRecipeJobLocalRuntime measures the CPU recipe (tiny-gpt 2m, two ranks on two n2 nodes
// of the local runtime: real Slurm, real PyTorch, the emulator's Compute API) through Terraform:
// the apply of the cluster; for each checkpoint interval (5 s, 15 s) the time from `terraform
// apply` of the job to its first training step, the checkpoint cost, the time from `scontrol
// requeue` to the first step of the resumed run, and the work lost when a node of the job is
// reset through the Compute API (no warning, so the work since the last checkpoint is redone).
// `make bench` runs it once (-benchtime 1x); it takes several minutes.
func BenchmarkRecipeJobLocalRuntime(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("skipping: the local runtime needs root")
	}
	acctest.RequireClusterTools(b)
	acctest.RequireTorch(b)
	if _, err := exec.LookPath("terraform"); err != nil && os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		b.Skip("skipping: terraform is not on PATH")
	}
	// The benchmark is an acceptance run by purpose; make bench does not set TF_ACC.
	b.Setenv("TF_ACC", "1")
	b.Setenv("TF_CLI_CONFIG_FILE", "")
	b.Setenv("CHECKPOINT_DISABLE", "1")
	for range b.N {
		benchRecipeJob(b)
	}
}

// benchFigures are one interval's measurements.
type benchFigures struct {
	firstStep, ckptCost, resume, resumeStartup, offset, lost, recovery time.Duration
}

// resetAt is where in the checkpoint interval the benchmark resets a node: the work lost should
// be about this share of the interval (plus the step in flight).
const resetAt = 0.75

func benchRecipeJob(b *testing.B) {
	env := &acctest.Env{Env: emulatortest.Start(b, emulatortest.WithLocalRuntime())}
	cl, err := gcp.NewClients(context.Background(), gcp.Config{Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, EmulatorHost: env.Host, UserAgent: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cl.Close() })
	agentPath, agentSHA := acctest.AgentBinary(b)
	base := runtimeBase(agentPath, agentSHA)
	report := func(name string) (cc.JobReport, recipes.Progress) { return env.JobReport("hrj-controller", name) }
	wait := func(name, what string, limit time.Duration, ok func(cc.JobReport, recipes.Progress) bool) (cc.JobReport, recipes.Progress, error) {
		deadline := time.Now().Add(limit)
		for {
			r, p := report(name)
			if ok(r, p) {
				return r, p, nil
			}
			if time.Now().After(deadline) {
				return r, p, fmt.Errorf("timed out after %s waiting for %s of job %s: report %+v progress %+v", limit, what, name, r, p)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// firstStepAt is when the current run of the trainer took its first step: its process start
	// plus its start-up (imports, rendezvous, loading a checkpoint), both from progress.json.
	firstStepAt := func(p recipes.Progress) time.Time {
		at, _ := time.Parse(time.RFC3339Nano, p.StartedAt)
		return at.Add(time.Duration(p.StartupSeconds * float64(time.Second)))
	}
	slurm := func(cmd string) error { _, err := env.Slurm(30*time.Second, "hrj-controller", cmd); return err }

	var clusterStart, applyStart time.Time
	var clusterApply time.Duration
	figures := map[time.Duration]benchFigures{}
	measure := func(name string, interval time.Duration) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var f benchFigures
			_, p, err := wait(name, "the first step", 2*time.Minute, func(r cc.JobReport, p recipes.Progress) bool { return p.Step >= 1 && p.StartedAt != "" })
			if err != nil {
				return err
			}
			f.firstStep = firstStepAt(p).Sub(applyStart)
			r, p, err := wait(name, "a checkpoint", 2*time.Minute, func(r cc.JobReport, p recipes.Progress) bool { return r.State == "RUNNING" && p.Checkpoints >= 1 })
			if err != nil {
				return err
			}
			f.ckptCost = time.Duration(p.CheckpointCostSecond * float64(time.Second))
			// A requeue warns the job (SIGTERM): it checkpoints at the next step and resumes there.
			requeued := time.Now()
			if err := slurm("scontrol requeue " + strconv.Itoa(r.JobID)); err != nil {
				return err
			}
			_, p2, err := wait(name, "the resumed run", 3*time.Minute, func(r cc.JobReport, q recipes.Progress) bool {
				return r.State == "RUNNING" && q.Restarts == p.Restarts+1 && q.Step > q.LastCheckpointStep && q.StartedAt != p.StartedAt
			})
			if err != nil {
				return err
			}
			f.resume = firstStepAt(p2).Sub(requeued)
			f.resumeStartup = time.Duration(p2.StartupSeconds * float64(time.Second))
			// A node reset gives no warning: the work since the last checkpoint is lost. Reset at
			// resetAt of the interval after a checkpoint (by the trainer's clock, the same as ours),
			// so the loss can be compared with the interval; a checkpoint seen too late (the
			// report's lag) is skipped for the next one.
			var r3 cc.JobReport
			var p3 recipes.Progress
			seen := p2.Checkpoints
			for {
				r3, p3, err = wait(name, "a checkpoint of the resumed run", 2*time.Minute, func(r cc.JobReport, q recipes.Progress) bool {
					return r.State == "RUNNING" && q.Restarts == p2.Restarts && q.Checkpoints > seen
				})
				if err != nil {
					return err
				}
				seen = p3.Checkpoints
				at, err := time.Parse(time.RFC3339Nano, p3.LastCheckpointTime)
				if err != nil {
					return fmt.Errorf("last_checkpoint_time %q: %v", p3.LastCheckpointTime, err)
				}
				if d := time.Until(at.Add(time.Duration(resetAt * float64(interval)))); d > 0 {
					time.Sleep(d)
					f.offset = time.Since(at)
					break
				}
			}
			nodes, err := cc.ExpandHostlist(r3.Nodes)
			if err != nil || len(nodes) == 0 {
				return fmt.Errorf("the job runs on %q: %v", r3.Nodes, err)
			}
			reset := time.Now()
			op, err := cl.Instances.Reset(context.Background(), &computepb.ResetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: nodes[len(nodes)-1]})
			if err == nil {
				_, err = cl.WaitCompute(context.Background(), op)
			}
			if err != nil {
				return err
			}
			_, p4, err := wait(name, "the run after the reset", 4*time.Minute, func(r cc.JobReport, q recipes.Progress) bool {
				return r.State == "RUNNING" && q.Restarts == p3.Restarts+1 && q.StartedAt != p3.StartedAt && q.Step >= 1
			})
			if err != nil {
				return err
			}
			f.lost = time.Duration((p4.LostSeconds - p3.LostSeconds) * float64(time.Second))
			f.recovery = firstStepAt(p4).Sub(reset)
			figures[interval] = f
			return nil
		}
	}
	intervals := []time.Duration{5 * time.Second, 15 * time.Second}
	steps := []resource.TestStep{{
		PreConfig: func() { clusterStart = time.Now() },
		Config:    env.Config(base),
		Check:     func(*terraform.State) error { clusterApply = time.Since(clusterStart); return nil },
	}}
	for _, iv := range intervals {
		name := "bench" + strconv.Itoa(int(iv/time.Second))
		steps = append(steps, resource.TestStep{
			PreConfig: func() { applyStart = time.Now() },
			Config:    env.Config(base + benchJob(name, iv)),
			Check:     measure(name, iv),
		})
	}
	steps = append(steps, resource.TestStep{Config: env.Config(base)})
	resource.Test(benchT{b}, resource.TestCase{ProtoV6ProviderFactories: factories, Steps: steps})
	if b.Failed() {
		return
	}
	b.ReportMetric(clusterApply.Seconds(), "cluster-apply-s")
	for _, iv := range intervals {
		f := figures[iv]
		sfx := "/ckpt-" + formatSeconds(iv)
		b.ReportMetric(f.firstStep.Seconds(), "apply-to-first-step-s"+sfx)
		b.ReportMetric(f.ckptCost.Seconds(), "checkpoint-s"+sfx)
		b.ReportMetric(f.resume.Seconds(), "requeue-to-step-s"+sfx)
		b.ReportMetric(f.resumeStartup.Seconds(), "resume-startup-s"+sfx)
		b.ReportMetric(f.offset.Seconds(), "reset-after-ckpt-s"+sfx)
		b.ReportMetric(f.lost.Seconds(), "lost-per-reset-s"+sfx)
		b.ReportMetric(f.recovery.Seconds(), "reset-to-step-s"+sfx)
		b.Logf("interval %s: apply→first step %.1f s, checkpoint %.3f s, requeue→first step %.1f s (trainer start-up %.1f s), node reset %.1f s after a checkpoint: %.1f s of work lost, reset→first step %.1f s",
			iv, f.firstStep.Seconds(), f.ckptCost.Seconds(), f.resume.Seconds(), f.resumeStartup.Seconds(), f.offset.Seconds(), f.lost.Seconds(), f.recovery.Seconds())
	}
}

// benchJob is the long-running CPU recipe job of runtimeJob, logging progress every step so the
// trainer's account of lost work (up to the last progress write) is exact to a step.
func benchJob(name string, interval time.Duration) string {
	return acctest.RuntimeTinyGPTJob(name, "cpu", fmt.Sprintf(`  overrides  = { max_steps = 1000000, hyperparameters = { log_every = "1" } }
  checkpoint = { interval = %q }
  wait_for   = "running"
`, formatSeconds(interval)))
}
