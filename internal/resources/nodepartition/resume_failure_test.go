package nodepartition_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// A dynamic node whose VM the zone cannot supply is down in Slurm within seconds, with the
// Compute API's error as its reason, and its job is requeued to wait for capacity: slurmctld is
// not left waiting ResumeTimeout (75 s here) for a node that will never boot. Past ResumeTimeout
// Slurm powers the node down and keeps the reason. The partition's next refresh lists the node in
// nodes_failed with the same reason. Once capacity is back, the controller returns the node to
// service by itself slurm.resume_retry_after later, the job runs and the list is empty again.
func TestAccNodePartition_localRuntimeResumeFailure(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	slurm := func(timeout time.Duration, cmd string) (string, error) {
		out, err := env.Slurm(timeout, "hce-controller", cmd)
		return strings.TrimSpace(out), err
	}
	var job, failed string
	resumeFails := func(*terraform.State) error {
		// The controller exists; from now on the zone has no n2-standard-2 left.
		instancesSvc(env).SetCapacity(acctest.Zone, "n2-standard-2", 0)
		var err error
		if job, err = slurm(time.Minute, "sbatch --parsable -p dyn -N 1 -t 5 --wrap hostname"); err != nil {
			return err
		}
		// Within seconds (the resume program's bulkInsert fails at once), not ResumeTimeout (75 s).
		deadline := time.Now().Add(30 * time.Second)
		var nodes, jobState string
		for {
			nodes, _ = slurm(20*time.Second, "sinfo -h -N -p dyn -o '%N|%T|%E'")
			jobState, _ = slurm(20*time.Second, "squeue -h -j "+job+" -o '%T|%r'; scontrol show job "+job+" | grep -o 'Restarts=[0-9]*'")
			failed = ""
			for _, l := range strings.Split(nodes, "\n") {
				if f := strings.SplitN(l, "|", 3); len(f) == 3 && strings.HasPrefix(f[1], "down") &&
					strings.HasPrefix(f[2], "resume failed: ") && strings.Contains(f[2], "ZONE_RESOURCE_POOL_EXHAUSTED") {
					failed = f[0]
					break
				}
			}
			if failed != "" && strings.HasPrefix(jobState, "PENDING") && !strings.Contains(jobState, "Restarts=0") {
				break
			}
			if time.Now().After(deadline) {
				diag, _ := slurm(20*time.Second, "sinfo -N -l; scontrol show job "+job+"; tail -n 30 /var/log/slurm/slurmctld.log; tail -n 5 /var/log/slurm/hypercompute-power.log")
				return fmt.Errorf("30 s after the job: the partition's nodes are %q and job %s is %q; want a node down with the stockout as reason and the job requeued (pending)\n%s",
					nodes, job, jobState, diag)
			}
			time.Sleep(time.Second)
		}
		if vms := vmNames(env.Env, "hce-dyn"); len(vms) != 0 {
			return fmt.Errorf("VMs of a partition whose every create failed: %v", vms)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: env.Config(strings.Replace(runtimeConfig(agentPath, agentSHA), "resume_timeout = 180",
					"resume_timeout = 75\n    resume_retry_after = 60", 1)),
				Check: resumeFails,
			},
			{
				// Past ResumeTimeout Slurm powers the node down (down~) and keeps its reason; the
				// refresh reads the failures the controller reports from Slurm.
				PreConfig: func() {
					deadline := time.Now().Add(3 * time.Minute)
					for {
						st, _ := slurm(20*time.Second, "sinfo -h -N -n "+failed+" -o '%T|%E'")
						if strings.HasPrefix(st, "down~|resume failed: ") {
							return
						}
						if time.Now().After(deadline) {
							t.Fatalf("3 minutes after the failure node %s is %q; want down~ (past ResumeTimeout) with the resume failure's reason", failed, st)
						}
						time.Sleep(2 * time.Second)
					}
				},
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					func(st *terraform.State) error {
						return resource.TestCheckResourceAttr(addr, "nodes_failed.0.name", failed)(st)
					},
					resource.TestMatchResourceAttr(addr, "nodes_failed.0.reason", regexp.MustCompile(`^resume failed: .*ZONE_RESOURCE_POOL_EXHAUSTED`)),
					resource.TestMatchResourceAttr(addr, "nodes_failed.0.time", regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)),
				),
			},
			{
				// Capacity is back; nobody touches Slurm: resume_retry_after (60 s) after Slurm
				// powered the failed nodes down, the controller returns them to service, the job
				// makes Slurm try again and runs, and the controller's next pass empties the report
				// (it follows Slurm).
				PreConfig: func() {
					instancesSvc(env).SetCapacity(acctest.Zone, "n2-standard-2", -1)
					key := instances.InstanceKey(acctest.Project, acctest.Zone, "hce-controller")
					// Slurm holds a requeued job back two minutes from its requeue.
					deadline := time.Now().Add(5 * time.Minute)
					for {
						st, _ := slurm(20*time.Second, "scontrol show job "+job+" | grep -o 'JobState=[A-Z]*'")
						_, reported := instancesSvc(env).GuestAttributes(key).Values[cc.GuestAttributeNamespace][cc.FailedAttr("dyn")]
						if st == "JobState=COMPLETED" && !reported {
							return
						}
						if time.Now().After(deadline) {
							diag, _ := slurm(20*time.Second, "sinfo -N -l; scontrol show job "+job)
							t.Fatalf("5 minutes after capacity returned: job %s is %q, the failure report is still out: %v\n%s", job, st, reported, diag)
						}
						time.Sleep(2 * time.Second)
					}
				},
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "nodes_failed.#", "0"),
					// The controller's agent, not Slurm, returned the node.
					func(*terraform.State) error {
						out, err := slurm(20*time.Second, "grep 'returned nodes to service after a failed resume' /var/log/hypercompute/agent.log")
						if err != nil || !strings.Contains(out, "hce-dyn-d") {
							return fmt.Errorf("the agent's log shows no node of dyn returned to service: %q, %v", out, err)
						}
						return nil
					},
				),
			},
		},
	})
}
