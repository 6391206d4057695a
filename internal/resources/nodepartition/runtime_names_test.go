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
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// The field's case on the local runtime (real slurmctld, slurmd in VMs, the agent's power
// programs): a job runs on two static nodes and a powered-up dynamic node, then
// static_node_count goes 2 → 1. Before, the dynamic range was renumbered: the apply blocked until
// the job ended and Slurm was left with a VM-less static node and a VM outside any count. Now only
// hce-dbg-1 is drained; the apply waits drain_timeout and fails naming the job, which keeps running
// on all three nodes; once it ends, the next apply deletes hce-dbg-1 and Slurm's nodes and the
// cloud's VMs agree, the dynamic node untouched and still taking jobs.
func TestAccNodePartition_localRuntimeStableNames(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	notices, restore := nodepartition.RecordNoticesForTest()
	t.Cleanup(restore)
	slurm := func(timeout time.Duration, cmd string) (string, error) {
		out, err := env.Slurm(timeout, "hce-controller", cmd)
		return strings.TrimSpace(out), err
	}
	diagnose := func() string {
		out, _ := slurm(20*time.Second, "sinfo -N -l; squeue; tail -n 30 /var/log/slurm/slurmctld.log")
		return out
	}
	waitFor := func(what string, timeout time.Duration, ok func() (bool, error)) error {
		deadline := time.Now().Add(timeout)
		for {
			done, err := ok()
			if done {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %s waiting for %s (last error %v)\n%s", timeout, what, err, diagnose())
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	config := func(static, dynamic int, action string) string {
		return env.Config(strings.Replace(runtimeConfig(agentPath, agentSHA), `resource "hypercompute_node_partition" "test" {
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
}`, fmt.Sprintf(`resource "hypercompute_node_partition" "test" {
  cluster                = hypercompute_training_cluster.c.id
  name                   = "dbg"
  machine_type           = "n2-standard-2"
  static_node_count      = %d
  max_dynamic_node_count = %d
  drain_timeout          = "20s"
  drain_timeout_action   = %q
  slurm = {
    default        = true
    suspend_time   = 900
    resume_timeout = 180
  }
  timeouts = { create = "5m", update = "4m" }
}`, static, dynamic, action), 1))
	}
	job := ""
	jobState := func() (string, error) { return slurm(20*time.Second, "squeue -h -j "+job+" -o '%T %N'") }
	// A job on both static nodes and the dynamic one, which Slurm powers up for it.
	startJob := func(*terraform.State) error {
		var err error
		if job, err = slurm(30*time.Second, "sbatch --parsable -p dbg -N 3 -J hold --wrap 'sleep 900'"); err != nil {
			return err
		}
		return waitFor("the job to run on hce-dbg-[0-1],hce-dbg-d0", 4*time.Minute, func() (bool, error) {
			s, err := jobState()
			return s == "RUNNING hce-dbg-[0-1],hce-dbg-d0", err
		})
	}
	var dynID uint64
	afterTimeout := func() {
		// The job still runs on all three nodes; only hce-dbg-1 is draining.
		if s, err := jobState(); s != "RUNNING hce-dbg-[0-1],hce-dbg-d0" {
			t.Fatalf("after the failed scale-down the job is %q (%v), want still running on its three nodes\n%s", s, err, diagnose())
		}
		// (mix: the job takes one CPU of each node.)
		if s, err := slurm(20*time.Second, "sinfo -h -N -p dbg -o '%N %t' | sort"); err != nil || s != "hce-dbg-0 mix\nhce-dbg-1 drng\nhce-dbg-d0 mix" {
			t.Fatalf("sinfo during the drain: %q (%v)", s, err)
		}
		dynID = instanceIDs(env, "hce-dbg-d0")["hce-dbg-d0"]
		if _, err := slurm(20*time.Second, "scancel "+job); err != nil {
			t.Fatal(err)
		}
	}
	agree := func(*terraform.State) error {
		if vms := vmNames(env.Env, "hce-dbg"); !slices.Equal(vms, []string{"hce-dbg-0", "hce-dbg-d0"}) {
			return fmt.Errorf("VMs after the scale-down: %v, want hce-dbg-0 and the untouched dynamic node hce-dbg-d0", vms)
		}
		if id := instanceIDs(env, "hce-dbg-d0")["hce-dbg-d0"]; id != dynID {
			return fmt.Errorf("the dynamic node's VM was replaced (id %d, was %d)", id, dynID)
		}
		// Slurm lists exactly the nodes of the counts; each one that is not powered down has a
		// VM, and every VM is one of them.
		var s string
		if err := waitFor("hce-dbg-0 and hce-dbg-d0 idle", time.Minute, func() (bool, error) {
			var err error
			s, err = slurm(20*time.Second, "sinfo -h -N -p dbg -o '%N %t' | sort")
			return s == "hce-dbg-0 idle\nhce-dbg-d0 idle", err
		}); err != nil {
			return fmt.Errorf("sinfo after the scale-down: %q: %v", s, err)
		}
		if p, ok := partitionOnController(env, "hce", "dbg"); !ok || p.StaticNodes != 1 || p.MaxDynamicNodes != 1 || p.Drain != nil {
			return fmt.Errorf("partition key after the scale-down: %+v (present %v)", p, ok)
		}
		if out, err := slurm(time.Minute, "srun -p dbg -w hce-dbg-d0 -t 1 --immediate=20 hostname"); err != nil || out != "hce-dbg-d0" {
			return fmt.Errorf("a job on the dynamic node after the scale-down: %q, %v", out, err)
		}
		// hce-dbg-0 answered throughout: the restarts of slurmctld for the new node sets must not
		// have it reported as a dead node.
		for _, n := range notices.All() {
			if strings.Contains(n, "not registered") {
				return fmt.Errorf("a live node was reported unregistered: %s", n)
			}
		}
		return nil
	}
	job2 := ""
	var staticID uint64
	startDynamicJob := func() {
		staticID = instanceIDs(env, "hce-dbg-0")["hce-dbg-0"]
		// A whole-node job lands on the dynamic node while the static one is busy; it may run
		// anywhere in the partition, so once requeued it can restart on hce-dbg-0.
		occupy, err := slurm(30*time.Second, "sbatch --parsable -p dbg -w hce-dbg-0 -J occupy --wrap 'sleep 900'")
		if err != nil {
			t.Fatal(err)
		}
		if err := waitFor("a job to occupy hce-dbg-0", time.Minute, func() (bool, error) {
			s, err := slurm(20*time.Second, "squeue -h -j "+occupy+" -o %T")
			return s == "RUNNING", err
		}); err != nil {
			t.Fatal(err)
		}
		if job2, err = slurm(30*time.Second, "sbatch --parsable -p dbg -N 1 --exclusive -J hold2 --wrap 'sleep 900'"); err != nil {
			t.Fatal(err)
		}
		if err := waitFor("the job to run on hce-dbg-d0", time.Minute, func() (bool, error) {
			s, err := slurm(20*time.Second, "squeue -h -j "+job2+" -o '%T %N'")
			return s == "RUNNING hce-dbg-d0", err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := slurm(20*time.Second, "scancel "+occupy); err != nil {
			t.Fatal(err)
		}
	}
	requeued := func(*terraform.State) error {
		if vms := vmNames(env.Env, "hce-dbg"); !slices.Equal(vms, []string{"hce-dbg-0"}) {
			return fmt.Errorf("VMs after the dynamic scale-down: %v, want only hce-dbg-0", vms)
		}
		if id := instanceIDs(env, "hce-dbg-0")["hce-dbg-0"]; id != staticID {
			return fmt.Errorf("the static node hce-dbg-0 was replaced by a change of the dynamic count (VM id %d, was %d)", id, staticID)
		}
		if !slices.ContainsFunc(notices.All(), func(n string) bool {
			return strings.Contains(n, "job "+job2+" (hold2) on hce-dbg-d0") && strings.Contains(n, "requeue")
		}) {
			return fmt.Errorf("no warning names the requeued job %s: %q", job2, notices.All())
		}
		return waitFor("the requeued job to run on hce-dbg-0", 2*time.Minute, func() (bool, error) {
			s, err := slurm(20*time.Second, "squeue -h -j "+job2+" -o '%T %N'")
			return s == "RUNNING hce-dbg-0", err
		})
	}
	// Calendar capacity on the same cluster: a partition on a calendar-mode future reservation has no VM and a
	// drained node until the emulator's clock reaches the window; then the controller creates the node on the
	// delivered reservation and it joins Slurm; at the end Compute stops it and the controller takes it out.
	calStart := env.Server.Now().Add(50 * time.Hour).Truncate(time.Second)
	calConfig := func() string {
		return config(1, 0, "requeue") + `
resource "hypercompute_node_partition" "cal" {
  cluster           = hypercompute_training_cluster.c.id
  name              = "cal"
  machine_type      = "n2-standard-2"
  static_node_count = 1
  provisioning = {
    model              = "calendar"
    future_reservation = "cal-week"
  }
  slurm    = { resume_timeout = 180 }
  timeouts = { create = "5m" }
}
`
	}
	calReason := func(state, want string) func() (bool, error) {
		return func() (bool, error) {
			s, err := slurm(20*time.Second, "sinfo -h -N -n hce-cal-0 -o '%T|%E'")
			return strings.HasPrefix(s, state) && strings.Contains(s, want), err
		}
	}
	calWaiting := func(*terraform.State) error {
		if vms := vmNames(env.Env, "hce-cal"); len(vms) != 0 {
			return fmt.Errorf("a calendar partition has VMs before its capacity arrived: %v", vms)
		}
		if err := waitFor("hce-cal-0 drained until the capacity arrives", time.Minute, calReason("drained", "cal-week arrives at "+calStart.UTC().Format(time.RFC3339))); err != nil {
			return err
		}
		// The window opens: the controller sees the delivered reservation and creates the node on it.
		if err := env.Server.Advance(50 * time.Hour); err != nil {
			return err
		}
		if err := waitFor("hce-cal-0 to join Slurm on the delivered reservation", 4*time.Minute, func() (bool, error) {
			s, err := slurm(20*time.Second, "sinfo -h -N -n hce-cal-0 -o %T")
			return s == "idle", err
		}); err != nil {
			return err
		}
		if out, err := slurm(time.Minute, "srun -p cal -w hce-cal-0 -t 1 --immediate=20 hostname"); err != nil || out != "hce-cal-0" {
			return fmt.Errorf("a job on the calendar node: %q, %v", out, err)
		}
		inst, ok := instancesSvc(env).Instance(instances.InstanceKey(acctest.Project, acctest.Zone, "hce-cal-0"))
		if ra := inst.GetReservationAffinity(); !ok || ra.GetConsumeReservationType() != "SPECIFIC_RESERVATION" || !strings.HasPrefix(ra.GetValues()[0], "cal-week-") {
			return fmt.Errorf("hce-cal-0 does not consume the delivered reservation: %v", ra)
		}
		// The window ends: Compute stops the VM and the controller takes the node out of service.
		if err := env.Server.Advance(8 * 24 * time.Hour); err != nil {
			return err
		}
		if err := waitFor("hce-cal-0 down after the end", 2*time.Minute, calReason("down", "cal-week ended")); err != nil {
			return err
		}
		return waitFor("hce-cal-0's VM deleted after the end", 2*time.Minute, func() (bool, error) { return len(vmNames(env.Env, "hce-cal")) == 0, nil })
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: config(2, 1, "fail"), Check: startJob},
			{
				Config:      config(1, 1, "fail"),
				ExpectError: acctest.ErrorMatching(`the scale-down waited drain_timeout \(20s\) for hce-dbg-1 to finish: job [0-9]+ \(hold\) on hce-dbg-1 and gave up`),
			},
			{PreConfig: afterTimeout, Config: config(1, 1, "fail"), Check: agree},
			{
				// The dynamic count goes 1 → 0 under a job; with drain_timeout_action = "requeue"
				// the controller requeues it past drain_timeout, it restarts on hce-dbg-0, and the
				// dynamic node's VM goes.
				PreConfig: startDynamicJob,
				Config:    config(1, 0, "requeue"),
				Check:     requeued,
			},
			{
				// A node set whose startup script fails: the node never joins Slurm, and the apply fails
				// with the script's exit status and its last output, read from the node's own report.
				PreConfig: func() { t.Cleanup(nodepartition.SetNodeErrorsAfterForTest(5 * time.Second)) },
				Config: config(1, 0, "requeue") + `
resource "hypercompute_node_partition" "bad" {
  cluster           = hypercompute_training_cluster.c.id
  name              = "bad"
  machine_type      = "n2-standard-2"
  static_node_count = 1
  startup_script    = "#!/bin/sh\necho installing the site driver\necho 'E: Unable to locate package site-driver' >&2\nexit 3\n"
  timeouts          = { create = "4m" }
}
`,
				ExpectError: acctest.ErrorMatching(`(?s)hce-bad-0.*the startup script failed \(exit code 3\).*Unable to locate package site-driver`),
			},
			{
				PreConfig: func() {
					insertCalendarRequest(t, env, "cal-week", "n2-standard-2", 1, calStart, 7)
				},
				Config: calConfig(),
				Check:  calWaiting,
			},
		},
	})
}

// partitionOnController reads a partition's key from the controller VM in the emulator.
func partitionOnController(env *acctest.Env, cluster, name string) (cc.Partition, bool) {
	inst, ok := instancesSvc(env).Instance(instances.InstanceKey(acctest.Project, acctest.Zone, cc.ControllerName(cluster)))
	if !ok {
		return cc.Partition{}, false
	}
	for _, it := range inst.GetMetadata().GetItems() {
		if it.GetKey() == cc.PartitionKey(name) {
			p, err := cc.DecodePartition(cluster, []byte(it.GetValue()))
			return p, err == nil
		}
	}
	return cc.Partition{}, false
}
