package nodepartition_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

func partitionConfig(clusterID, name, machine string, static, dynamic int, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_node_partition" "test" {
  cluster                = %q
  name                   = %q
  machine_type           = %q
  static_node_count      = %d
  max_dynamic_node_count = %d
%s
}
`, clusterID, name, machine, static, dynamic, extra)
}

// checkNoPartitionLeft is a CheckDestroy: no VM, template, policy or key of the partition remains.
func checkNoPartitionLeft(env *acctest.Env, tc *testCluster, name, prefix string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if left := vmNames(env.Env, prefix); len(left) > 0 {
			return fmt.Errorf("VMs left after destroy: %v", left)
		}
		inv := env.Inventory()
		for _, kind := range []string{instances.KindInstanceTemplates, instances.KindResourcePolicies} {
			if n := inv.Names(kind); len(n) > 0 {
				return fmt.Errorf("%s left after destroy: %v", kind, n)
			}
		}
		if _, ok := tc.partition(env.Env, name); ok {
			return fmt.Errorf("partition key %s is still on the controller", name)
		}
		return nil
	}
}

func checkVMs(env *acctest.Env, prefix string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := vmNames(env.Env, prefix)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("VMs of %s: have %v, want %v", prefix, got, want)
		}
		return nil
	}
}

func TestAccNodePartition_basic(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcb", clusterOpts{})
	cfg := env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 4, `
  labels = { team = "research" }
  slurm = {
    default   = true
    max_time  = "2-00:00:00"
    features  = ["fast"]
  }
`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcb-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(tc.id+"/partitions/cpu")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("zone"), knownvalue.StringExact(acctest.Zone)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes_total"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes_running"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_names"), knownvalue.StringExact("hcb-cpu-[0-1]")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("static_node_names"), knownvalue.StringExact("hcb-cpu-[0-1]")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("dynamic_node_names"), knownvalue.StringExact("hcb-cpu-d[0-3]")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("provisioning").AtMapKey("model"), knownvalue.StringExact("standard")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("image"), knownvalue.StringExact("projects/debian-cloud/global/images/family/debian-12")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcb-cpu", "hcb-cpu-0", "hcb-cpu-1"),
					func(*terraform.State) error {
						p, ok := tc.partition(env.Env, "cpu")
						if !ok || p.StaticNodes != 2 || p.MaxDynamicNodes != 4 || !p.Default || p.InstanceTemplate == "" || p.Zone != acctest.Zone {
							return fmt.Errorf("partition key on the controller: %+v (present %v)", p, ok)
						}
						// CPU nodes are Shielded VMs with Secure Boot, like the controller and login VMs.
						inst, ok := instancesSvc(env).Instance(instances.InstanceKey(acctest.Project, acctest.Zone, "hcb-cpu-0"))
						if sh := inst.GetShieldedInstanceConfig(); !ok || !sh.GetEnableSecureBoot() || !sh.GetEnableVtpm() || !sh.GetEnableIntegrityMonitoring() {
							return fmt.Errorf("hcb-cpu-0 shielded config %v (exists %v), want Secure Boot, vTPM and integrity monitoring", sh, ok)
						}
						return nil
					},
				),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateId:           tc.id + "/partitions/cpu",
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Slurm options change in place.
				Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 4, `
  labels = { team = "research" }
  slurm = {
    exclusive          = true
    max_time           = "60"
    resume_retry_after = 0
  }
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: func(*terraform.State) error {
					p, _ := tc.partition(env.Env, "cpu")
					if !p.Exclusive || p.Default || p.MaxTime != "60" || p.ResumeRetryAfter == nil || *p.ResumeRetryAfter != 0 {
						return fmt.Errorf("slurm options not applied: %+v", p)
					}
					return nil
				},
			},
			{
				// Labels change in place: the running nodes are relabelled, new ones come from a new
				// template, and the old template goes.
				Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 4, `
  labels = { team = "infra" }
  slurm = {
    exclusive          = true
    max_time           = "60"
    resume_retry_after = 0
  }
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount(instances.KindInstanceTemplates, 1),
					func(*terraform.State) error {
						svc := instancesSvc(env)
						for _, n := range []string{"hcb-cpu-0", "hcb-cpu-1"} {
							inst, _ := svc.Instance(instances.InstanceKey(acctest.Project, acctest.Zone, n))
							if inst.GetLabels()["team"] != "infra" || inst.GetLabels()["hypercompute-partition"] != "hcb-cpu" {
								return fmt.Errorf("%s labels %v", n, inst.GetLabels())
							}
						}
						p, _ := tc.partition(env.Env, "cpu")
						for _, it := range env.Inventory().Kinds[instances.KindInstanceTemplates] {
							if "projects/"+acctest.Project+"/global/instanceTemplates/"+it.Name != p.InstanceTemplate {
								return fmt.Errorf("template %s remains; the partition uses %s", it.Name, p.InstanceTemplate)
							}
						}
						return nil
					},
				),
			},
		},
	})
}
