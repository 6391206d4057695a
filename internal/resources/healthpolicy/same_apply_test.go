package healthpolicy_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// extraPartition is a CPU partition "extra" of the cluster, dynamic nodes only (the API-only
// cloud boots no VM, and a partition without static nodes waits for none).
func extraPartition(cluster string) string {
	return fmt.Sprintf(`
resource "hypercompute_node_partition" "extra" {
  cluster                = %q
  name                   = "extra"
  machine_type           = "n2-standard-4"
  max_dynamic_node_count = 2
}
`, cluster)
}

// A blueprint that adds a partition and, in the same apply, a health policy and a recipe job
// naming it (by reference, as the docs say) plans and applies: the cluster does not have the
// partition at plan, but the partition's own plan recorded it for this operation.
func TestAccHealthPolicy_partitionCreatedInSameApply(t *testing.T) {
	env := acctest.New(t)
	cluster := apiCluster(t, env, "hps")
	acctest.StartFakeAgent(t, env.Env)
	startFakeController(t, env, "hps")
	reportJobsSubmitted(t, env, "hps")
	cfg := env.Config(extraPartition(cluster) + policyConfig(cluster, `
  partitions = ["cpu", hypercompute_node_partition.extra.name]
  checks     = [{ name = "ecc" }]
`) + fmt.Sprintf(`
resource "hypercompute_recipe_job" "train" {
  cluster    = %q
  name       = "train"
  partition  = hypercompute_node_partition.extra.name
  nodes      = 1
  recipe     = { model = "tiny-gpt", size = "2m", mode = "pretrain" }
  checkpoint = { interval = "1m" }
  wait_for   = "submitted"
}
`, cluster))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true},
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					if _, ok := env.ControllerKey("hps", cc.PartitionKey("extra")); !ok {
						return fmt.Errorf("partition extra was not written")
					}
					if p, ok := controllerPolicy(env, "hps", "default"); !ok || !slices.Equal(p.Partitions, []string{"cpu", "extra"}) {
						return fmt.Errorf("the controller holds policy %+v (found: %v)", p, ok)
					}
					v, ok := env.ControllerKey("hps", cc.JobKey("train"))
					var j recipes.Job
					if !ok || json.Unmarshal([]byte(v), &j) != nil || j.Partition != "extra" {
						return fmt.Errorf("the controller holds job %q (found: %v)", v, ok)
					}
					return nil
				},
			},
		},
	})
}

// reportJobsSubmitted plays the controller agent's job handling as far as wait_for = "submitted"
// needs: every job key is reported as Slurm job 1, PENDING; a key that went away loses its report.
func reportJobsSubmitted(t *testing.T, env *acctest.Env, cluster string) {
	svc, key := env.ControllerVM(t, cluster)
	reported := map[string]bool{}
	acctest.Every(t, 100*time.Millisecond, func() {
		inst, ok := svc.Instance(key)
		if !ok {
			return
		}
		now := map[string]bool{}
		for _, it := range inst.GetMetadata().GetItems() {
			name, ok := strings.CutPrefix(it.GetKey(), cc.JobKeyPrefix)
			var j recipes.Job
			if !ok || json.Unmarshal([]byte(it.GetValue()), &j) != nil {
				continue
			}
			now[name] = true
			v, _ := cc.EncodeJobReport(cc.JobReport{Generation: j.Generation, JobID: 1, State: "PENDING", SubmitTime: "2026-12-01T21:00:00Z"})
			_ = svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.JobAttr(name), v)
		}
		for name := range reported {
			if !now[name] {
				_ = svc.DeleteGuestAttribute(key, cc.GuestAttributeNamespace, cc.JobAttr(name))
			}
		}
		reported = now
	})
}
