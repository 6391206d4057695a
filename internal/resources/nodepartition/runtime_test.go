package nodepartition_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// runtimeConfig is a real cluster on the local runtime (network, Filestore /home, controller with
// the agent built from this tree) and a dynamic partition: no VM exists until a job asks for one.
func runtimeConfig(agentPath, agentSHA string) string {
	return acctest.RuntimeClusterConfig("hce", agentPath, agentSHA) + `
resource "hypercompute_node_partition" "test" {
  cluster                = hypercompute_training_cluster.c.id
  name                   = "dyn"
  machine_type           = "n2-standard-2"
  max_dynamic_node_count = 2
  slurm = {
    default        = true
    suspend_time   = 5
    resume_timeout = 180
  }
  timeouts = { create = "5m" }
}
`
}

// A job submitted to a dynamic partition makes slurmctld call the agent's ResumeProgram, which
// creates the VM through the emulated Compute API from the partition's template; the VM boots, its
// slurmd registers and the job runs on it; once idle, Slurm suspends the node and the agent's
// SuspendProgram deletes the VM. Then a static partition is added, whose apply waits until its
// node registered.
func TestAccNodePartition_localRuntimeDynamic(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	slurm := func(timeout time.Duration, cmd string) (string, error) {
		return env.Slurm(timeout, "hce-controller", cmd)
	}
	waitFor := func(what string, timeout time.Duration, ok func() bool) error {
		deadline := time.Now().Add(timeout)
		for !ok() {
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
			}
			time.Sleep(250 * time.Millisecond)
		}
		return nil
	}
	jobRuns := func(*terraform.State) error {
		if vms := vmNames(env.Env, "hce-dyn"); len(vms) != 0 {
			return fmt.Errorf("a dynamic partition has VMs before any job: %v", vms)
		}
		out, err := slurm(4*time.Minute, "srun -p dyn -N 1 -t 5 hostname")
		if err != nil {
			diag, _ := slurm(20*time.Second, "sinfo -N -l; tail -n 30 /var/log/slurm/slurmctld.log")
			return fmt.Errorf("%v\n%s", err, diag)
		}
		if strings.TrimSpace(out) != "hce-dyn-d0" {
			return fmt.Errorf("the job ran on %q, want hce-dyn-d0", out)
		}
		if vms := vmNames(env.Env, "hce-dyn"); !slices.Equal(vms, []string{"hce-dyn-d0"}) {
			return fmt.Errorf("VMs while the node is up: %v", vms)
		}
		// Idle for suspend_time: Slurm powers the node down and its VM is deleted.
		return waitFor("the idle node's VM to be deleted", 2*time.Minute, func() bool { return len(vmNames(env.Env, "hce-dyn")) == 0 })
	}
	// A static partition's apply ends once its node registered: right after it, sinfo shows the
	// node idle (not idle~, powered down as far as Slurm knows) and a job runs there at once.
	staticReady := func(*terraform.State) error {
		out, err := slurm(20*time.Second, "sinfo -h -N -n hce-st-0 -o %T")
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != "idle" {
			return fmt.Errorf("right after the apply sinfo says hce-st-0 is %q, want idle", strings.TrimSpace(out))
		}
		if out, err := slurm(time.Minute, "srun -p st -N 1 -t 1 --immediate=10 hostname"); err != nil || strings.TrimSpace(out) != "hce-st-0" {
			return fmt.Errorf("a job on the static partition right after the apply: %q, %v", out, err)
		}
		return nil
	}
	staticPartition := acctest.RuntimePartitionConfig("static", "st", "n2-standard-2", 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA)),
				Check:  jobRuns,
			},
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA) + staticPartition),
				Check:  staticReady,
			},
		},
	})
}
