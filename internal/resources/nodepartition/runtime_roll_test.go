package nodepartition_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// rolledAgent is another build of the agent for a roll to deliver: the same binary with bytes
// appended (an ELF ignores them), so its digest differs. It lies next to the first, where the
// emulated VMs read it.
func rolledAgent(t *testing.T, agentPath string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(agentPath)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, []byte("\nhypercompute roll test\n")...)
	sum := sha256.Sum256(b)
	p := filepath.Join(filepath.Dir(agentPath), "agent-roll-"+hex.EncodeToString(sum[:4]))
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p, hex.EncodeToString(sum[:])
}

func rollConfig(agentPath, agentSHA string) string {
	return acctest.ClusterConfig("hcr", "file://"+agentPath, agentSHA, `  login               = { count = 0 }
  deletion_protection = false
  timeouts            = { create = "5m", update = "3m" }
`) + `
resource "hypercompute_node_partition" "st" {
  cluster                  = hypercompute_training_cluster.c.id
  cluster_node_config_hash = hypercompute_training_cluster.c.node_config_hash
  name                     = "st"
  machine_type             = "n2-standard-2"
  static_node_count        = 2
  slurm                    = { default = true }
  rolling_update           = { max_unavailable = "1", job_timeout = "10s", on_job_timeout = "requeue" }
  timeouts                 = { create = "5m", update = "10m" }
}
`
}

// A new agent build on the cluster reaches the partition: its plan shows the update, and the
// apply replaces the two static nodes one at a time while a job runs. The job on the node being
// replaced is requeued past job_timeout and runs on the node in service; the partition ends with
// every static node recreated from the new template, in service, and the job running.
func TestAccNodePartition_localRuntimeRollingReplacement(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	newPath, newSHA := rolledAgent(t, agentPath)
	static := []string{"hcr-st-0", "hcr-st-1"}
	slurm := func(cmd string) (string, error) { return env.Slurm(time.Minute, "hcr-controller", cmd) }
	var jobID string
	var before map[string]uint64
	var mu sync.Mutex
	fewest := len(static)
	submit := func() {
		before = instanceIDs(env, static...)
		out, err := slurm("sbatch --parsable --requeue -p st -N 1 -t 30 -o /dev/null --wrap 'sleep 900'")
		if err != nil {
			t.Fatal(err)
		}
		jobID = strings.TrimSpace(out)
		deadline := time.Now().Add(time.Minute)
		for {
			st, _ := slurm("squeue -h -j " + jobID + " -o %T")
			if strings.TrimSpace(st) == "RUNNING" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s is %q, not running", jobID, st)
			}
			time.Sleep(time.Second)
		}
		stop := env.Store().Watch(func(c core.Change) {
			if c.Kind == instances.KindInstances {
				n := len(instanceIDs(env, static...))
				mu.Lock()
				fewest = min(fewest, n)
				mu.Unlock()
			}
		})
		t.Cleanup(stop)
	}
	rolled := func(*terraform.State) error {
		now := instanceIDs(env, static...)
		for _, n := range static {
			if now[n] == 0 || now[n] == before[n] {
				return fmt.Errorf("%s was not recreated (id %d, before %d)", n, now[n], before[n])
			}
			if got := nodeAgent(env, n); got != newSHA {
				return fmt.Errorf("%s boots agent %.12s, want the new %.12s", n, got, newSHA)
			}
		}
		// One node at a time: a bulkInsert per batch.
		if n := env.CallCount("compute.instances.bulkInsert"); n != int64(1+len(static)) {
			return fmt.Errorf("%d bulkInsert calls in all, want 1 for the create and one per node replaced", n)
		}
		mu.Lock()
		down := len(static) - fewest
		mu.Unlock()
		if down > 1 {
			return fmt.Errorf("%d static nodes were down at once; max_unavailable is 1", down)
		}
		// Both nodes are back in service; the job was requeued off a node being replaced and runs.
		deadline := time.Now().Add(time.Minute)
		for {
			states, _ := slurm("sinfo -h -N -p st -o '%N %T'")
			job, _ := slurm("scontrol show job " + jobID)
			restarts := regexp.MustCompile(`Restarts=(\d+)`).FindStringSubmatch(job)
			ok := !strings.Contains(states, "drain") && strings.Count(states, "\n") == 2 &&
				strings.Contains(job, "JobState=RUNNING") && restarts != nil && restarts[1] != "0"
			if ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("after the roll: sinfo %q; job %s: %s", states, jobID, job)
			}
			time.Sleep(2 * time.Second)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				// A new partition's nodes are current: one bulkInsert, no roll.
				Config: env.Config(rollConfig(agentPath, agentSHA)),
				Check: func(*terraform.State) error {
					if n := env.CallCount("compute.instances.bulkInsert"); n != 1 {
						return fmt.Errorf("creating the partition made %d bulkInsert calls, want 1", n)
					}
					return nil
				},
			},
			{
				PreConfig: submit,
				Config:    env.Config(rollConfig(newPath, newSHA)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("hypercompute_node_partition.st", plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue("hypercompute_node_partition.st", tfjsonpath.New("cluster_node_config_hash")),
				}},
				Check: rolled,
			},
		},
	})
}
