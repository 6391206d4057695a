package nodepartition_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// runtimeConfig is a real cluster on the local runtime (network, Filestore /home, controller with
// the agent built from this tree, two extra file systems: a Filestore share at /data and a Managed
// Lustre at /scratch) and a dynamic partition: no VM exists until a job asks for one.
func runtimeConfig(agentPath, agentSHA string) string {
	return acctest.ClusterConfig("hce", "file://"+agentPath, agentSHA, `  deletion_protection = false
  timeouts            = { create = "5m", update = "3m" }
  storage = [
    { mount_path = "/data", filestore = hypercompute_filestore.data.id },
    { mount_path = "/scratch", lustre = hypercompute_lustre.scratch.id },
  ]
`) + `
resource "hypercompute_filestore" "data" {
  name                = "hce-data"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}

resource "hypercompute_lustre" "scratch" {
  name                = "hce-scratch"
  filesystem          = "scratch"
  network             = hypercompute_network.net.name
  deletion_protection = false
}

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
// node registered, with a second node set of another machine type and a lower weight in its Slurm
// partition, where a one-node job lands first.
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
		// Slurm partition st is two node sets (issue 22 item 1): st's n2-standard-2 node (on-demand,
		// weight 20) and st-a's n2-standard-4 node (weight 5), listed after st's in slurm.conf. Both
		// are idle, so only the weight makes a one-node job land on st-a's node.
		if out, err := slurm(20*time.Second, "sinfo -h -N -p st -o '%N %w'"); err != nil || strings.Join(strings.Fields(out), " ") != "hce-st-0 20 hce-st-a-0 5" {
			return fmt.Errorf("sinfo of partition st (node, weight): %q, %v; want hce-st-0 20 and hce-st-a-0 5", out, err)
		}
		if out, err := slurm(20*time.Second, "scontrol show node hce-st-a-0"); err != nil || !strings.Contains(out, "Weight=5 ") || !strings.Contains(out, "Partitions=st ") {
			return fmt.Errorf("scontrol show node hce-st-a-0: %q, %v; want Weight=5 in partition st", out, err)
		}
		if out, err := slurm(time.Minute, "srun -p st -N 1 -t 1 --immediate=10 hostname"); err != nil || strings.TrimSpace(out) != "hce-st-a-0" {
			return fmt.Errorf("a one-node job on partition st right after the apply ran on %q (%v), want the lower-weight node set's hce-st-a-0", out, err)
		}
		if out, err := slurm(time.Minute, "srun -p st -N 2 -t 1 --immediate=10 hostname | sort"); err != nil || strings.Join(strings.Fields(out), " ") != "hce-st-0 hce-st-a-0" {
			return fmt.Errorf("a two-node job on partition st ran on %q (%v), want both node sets' nodes", out, err)
		}
		return nil
	}
	// The extra file systems are mounted where asked for and only there: hce-st-0 has /data (the
	// Filestore share) and /scratch (the Lustre), hce-st-a-0 only /scratch; a file written on
	// hce-st-0 is on the controller's /data and on hce-st-a-0's /scratch.
	storageMounted := func(*terraform.State) error {
		run := func(vm, cmd string) (string, error) { return env.RunOn(30*time.Second, vm, "bash", "-c", cmd) }
		mounts := func(vm string) (string, error) {
			out, err := run(vm, "findmnt -n -o TARGET /data; findmnt -n -o TARGET /scratch; true")
			return strings.Join(strings.Fields(out), " "), err
		}
		if got, err := mounts("hce-st-0"); err != nil || got != "/data /scratch" {
			return fmt.Errorf("hce-st-0 (storage = [/data, /scratch]) mounts %q (%v), want /data and /scratch", got, err)
		}
		if got, err := mounts("hce-st-a-0"); err != nil || got != "/scratch" {
			return fmt.Errorf("hce-st-a-0 (storage = [/scratch]) mounts %q (%v), want only /scratch", got, err)
		}
		if _, err := run("hce-st-0", "echo from-st-0 > /data/storage-proof && echo from-st-0 > /scratch/storage-proof"); err != nil {
			return fmt.Errorf("writing on hce-st-0: %v", err)
		}
		for vm, path := range map[string]string{"hce-controller": "/data/storage-proof", "hce-st-a-0": "/scratch/storage-proof"} {
			if out, err := run(vm, "cat "+path); err != nil || strings.TrimSpace(out) != "from-st-0" {
				return fmt.Errorf("%s on %s: %q (%v), want the file hce-st-0 wrote", path, vm, out, err)
			}
		}
		return nil
	}
	// Node set st mounts both of the cluster's extra file systems, st-a only /scratch (issue 22 item 4).
	staticPartition := strings.Replace(acctest.RuntimePartitionConfig("static", "st", "n2-standard-2", 1),
		"  timeouts", "  storage           = [\"/data\", \"/scratch\"]\n  timeouts", 1) + `
resource "hypercompute_node_partition" "static_a" {
  cluster           = hypercompute_training_cluster.c.id
  name              = "st-a"
  machine_type      = "n2-standard-4"
  static_node_count = 1
  storage           = ["/scratch"]
  slurm             = { partition = hypercompute_node_partition.static.name, weight = 5 }
  timeouts          = { create = "5m" }
}
`
	// Least privilege (issue 23, items 9 and 10): any user who can log in to the login VM or run a job
	// on a node can take that VM's token from its metadata server, but neither role has a Compute
	// scope, so instances.delete on a node is refused as on Google Cloud and the node keeps running
	// jobs; the controller's own token created and deleted the dynamic nodes above.
	tokensCannotDelete := func(*terraform.State) error {
		for _, vm := range []string{"hce-login-0", "hce-st-0"} {
			code, body, err := env.DeleteWithVMToken(vm, "nobody", "hce-st-0")
			if err != nil {
				return err
			}
			if code != 403 || !strings.Contains(body, "ACCESS_TOKEN_SCOPE_INSUFFICIENT") {
				return fmt.Errorf("instances.delete of hce-st-0 with %s's token answered %d %s; want 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT", vm, code, body)
			}
		}
		if vms := vmNames(env.Env, "hce-st"); !slices.Equal(vms, []string{"hce-st-0", "hce-st-a-0"}) {
			return fmt.Errorf("VMs of partition st after the refused deletes: %v", vms)
		}
		if out, err := slurm(time.Minute, "srun -p st -w hce-st-0 -N 1 -t 1 --immediate=10 hostname"); err != nil || strings.TrimSpace(out) != "hce-st-0" {
			return fmt.Errorf("a job on the static partition after the refused deletes: %q, %v", out, err)
		}
		return nil
	}

	// Scale-down of a dynamic node that runs a job (issue 24, item 3): the apply names the job it
	// waits for, gives up at drain_timeout (plus a bound for the controller's passes), and once the
	// job is gone the next apply deletes the VM and leaves no ghost node in Slurm. The job goes to
	// d1: d0 is still powering down from the first step (SuspendTimeout), its VM already deleted.
	var jobID string
	var applyStart time.Time
	const drainTimeout = 20 * time.Second
	busyNode := func() {
		out, err := slurm(time.Minute, "sbatch --parsable -p dyn -N 1 -w hce-dyn-d1 -J hold-d1 --wrap 'sleep 900'")
		if err != nil {
			t.Fatalf("sbatch: %v", err)
		}
		jobID = strings.TrimSpace(out)
		if err := waitFor("job "+jobID+" to run on hce-dyn-d1", 4*time.Minute, func() bool {
			out, _ := slurm(20*time.Second, "squeue -h -j "+jobID+" -o '%T %N'")
			return strings.TrimSpace(out) == "RUNNING hce-dyn-d1"
		}); err != nil {
			diag, _ := slurm(20*time.Second, "squeue; sinfo -N -l")
			t.Fatalf("%v\n%s", err, diag)
		}
		applyStart = time.Now()
	}
	scaledDown := strings.Replace(runtimeConfig(agentPath, agentSHA), "max_dynamic_node_count = 2",
		fmt.Sprintf("static_node_count = 1\n  max_dynamic_node_count = 0\n  drain_timeout = %q", drainTimeout), 1)
	// A hang must fail the step, not the test binary's timeout.
	scaledDown = strings.Replace(scaledDown, `timeouts = { create = "5m" }`, `timeouts = { create = "5m", update = "5m" }`, 1) + staticPartition
	cancelJob := func() {
		elapsed := time.Since(applyStart)
		t.Logf("the scale-down that waited for job %s gave up after %s (drain_timeout %s)", jobID, elapsed.Round(time.Second), drainTimeout)
		if elapsed > drainTimeout+2*time.Minute {
			t.Fatalf("the scale-down that waited for job %s failed only after %s; drain_timeout is %s", jobID, elapsed.Round(time.Second), drainTimeout)
		}
		if vms := vmNames(env.Env, "hce-dyn"); !slices.Contains(vms, "hce-dyn-d1") {
			t.Fatalf("after the scale-down gave up, the busy node's VM must stay: %v", vms)
		}
		if _, err := slurm(20*time.Second, "scancel "+jobID); err != nil {
			t.Fatalf("scancel: %v", err)
		}
		applyStart = time.Now()
	}
	noGhost := func(*terraform.State) error {
		elapsed := time.Since(applyStart)
		t.Logf("the scale-down of the emptied node took %s", elapsed.Round(time.Second))
		if elapsed > 2*time.Minute {
			return fmt.Errorf("the scale-down of an idle node took %s", elapsed.Round(time.Second))
		}
		if vms := vmNames(env.Env, "hce-dyn"); !slices.Equal(vms, []string{"hce-dyn-0"}) {
			return fmt.Errorf("VMs of partition dyn after the scale-down: %v, want only its static node hce-dyn-0", vms)
		}
		out, err := slurm(20*time.Second, "sinfo -h -N -o '%N %P %T'")
		if err != nil {
			return err
		}
		if strings.Contains(out, "hce-dyn-d") {
			return fmt.Errorf("Slurm still lists dynamic nodes the scale-down removed:\n%s", out)
		}
		return nil
	}
	// A fixed apply after a failed one converges (issue 24, item 4): a GPU partition whose first
	// apply fails because the network has no GPU network set (while a health policy on the static
	// partition is created beside it), then the network gets the set and the same partition is
	// applied again: the controller takes the configuration with it. The health policy is what
	// wedged it: the controller's agent hashes the files the policies add, and the provider waited
	// for a hash without them.
	gpuPartition := `
resource "hypercompute_health_policy" "st" {
  cluster          = hypercompute_training_cluster.c.id
  name             = "st"
  partitions       = [hypercompute_node_partition.static.name]
  interval_seconds = 5
  checks           = [{ name = "disk", paths = ["/tmp"], min_free_gb = 0.05, schedules = ["boot", "periodic"], action = "reboot" }]
  timeouts         = { create = "3m", delete = "2m" }
}

resource "hypercompute_node_partition" "a3h" {
  cluster                = hypercompute_training_cluster.c.id
  name                   = "a3h"
  machine_type           = "a3-highgpu-8g"
  max_dynamic_node_count = 2
  timeouts               = { create = "3m" }
}
`
	withGPUNetworks := strings.Replace(scaledDown, `subnet = { cidr = "10.0.0.0/20" }`,
		`subnet = { cidr = "10.0.0.0/20" }
  gpu_networks = { stack = "tcpx" }`, 1)
	gpuConfigured := func(*terraform.State) error {
		out, err := slurm(20*time.Second, "sinfo -h -p a3h -N -o '%N %G'")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "hce-a3h-d0") || !strings.Contains(out, "gpu:") {
			return fmt.Errorf("after the fixed apply Slurm's a3h partition is %q, want its dynamic GPU nodes", out)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA)),
				Check:  jobRuns,
			},
			{
				Config: env.Config(runtimeConfig(agentPath, agentSHA) + staticPartition),
				Check:  resource.ComposeTestCheckFunc(staticReady, tokensCannotDelete, storageMounted),
			},
			{
				PreConfig:   busyNode,
				Config:      env.Config(scaledDown),
				ExpectError: regexp.MustCompile(`drain_timeout\s+\(20s\)[\s\S]*hce-dyn-d1[\s\S]*hold-d1`),
			},
			{
				PreConfig: cancelJob,
				Config:    env.Config(scaledDown),
				Check:     noGhost,
			},
			{
				Config:      env.Config(scaledDown + gpuPartition),
				ExpectError: regexp.MustCompile(`needs the tcpx GPU network set`),
			},
			{
				Config: env.Config(withGPUNetworks + gpuPartition),
				Check:  gpuConfigured,
			},
		},
	})
}
