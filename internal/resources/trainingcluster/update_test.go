package trainingcluster_test

import (
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// rememberID and sameID prove an update kept the controller VM (no replacement).
func rememberID(env *acctest.Env, name string, id *uint64) resource.TestCheckFunc {
	return checkVM(env, name, func(inst *computepb.Instance) error { *id = inst.GetId(); return nil })
}

func sameID(env *acctest.Env, name string, id *uint64, same bool) resource.TestCheckFunc {
	return checkVM(env, name, func(inst *computepb.Instance) error {
		if (inst.GetId() == *id) != same {
			return fmt.Errorf("id %d, before %d; want same=%v", inst.GetId(), *id, same)
		}
		return nil
	})
}

func TestAccTrainingCluster_updateInPlace(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cluster := func(extra string) string {
		return env.Config(storageConfig("hc-tcu") + clusterConfig("hcu", "file:///opt/hypercompute-agent", fakeSHA, unprotected+extra))
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	var ctlID uint64
	var hashBefore string
	partition, err := clusterconfig.EncodePartition("hcu", clusterconfig.Partition{Name: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cluster(`  slurm = { extra = { MaxJobCount = "10000" } }` + "\n"),
				Check: resource.ComposeAggregateTestCheckFunc(
					rememberID(env, "hcu-controller", &ctlID),
					checkVMs(env, "hcu-controller", "hcu-login-0"),
					checkHash(env, fake, "hcu"),
					func(s *terraform.State) error {
						hashBefore = s.RootModule().Resources[addr].Primary.Attributes["config_hash"]
						// A node partition writes its key on the controller meanwhile.
						return setMetadataKey(env, "hcu-controller", clusterconfig.PartitionKey("cpu"), string(partition))
					},
				),
			},
			{
				// Two login VMs, another Slurm setting, a label: all in place; the controller stays.
				Config: cluster(`  slurm  = { extra = { MaxJobCount = "20000" } }
  login  = { count = 2 }
  labels = { team = "ml" }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes").AtSliceIndex(1).AtMapKey("name"), knownvalue.StringExact("hcu-login-1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("team"), knownvalue.StringExact("ml")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameID(env, "hcu-controller", &ctlID, true),
					checkVMs(env, "hcu-controller", "hcu-login-0", "hcu-login-1"),
					// The cluster's own hash covers the new setting, not the partition.
					checkHash(env, fake, "hcu"),
					func(s *terraform.State) error {
						if s.RootModule().Resources[addr].Primary.Attributes["config_hash"] == hashBefore {
							return fmt.Errorf("config_hash did not change with slurm.extra")
						}
						return nil
					},
					checkVM(env, "hcu-controller", func(inst *computepb.Instance) error {
						md := metadataOf(inst)
						if md[clusterconfig.PartitionKey("cpu")] != string(partition) {
							return fmt.Errorf("the partition's metadata key was lost by the cluster's update")
						}
						c, err := clusterconfig.DecodeCluster([]byte(md[clusterconfig.ClusterKey]))
						if err != nil || c.Slurm.Extra["MaxJobCount"] != "20000" || c.LoginCount != 2 {
							return fmt.Errorf("cluster config %+v, %v", c.Slurm, err)
						}
						if inst.GetLabels()["team"] != "ml" {
							return fmt.Errorf("labels %v", inst.GetLabels())
						}
						return nil
					}),
				),
			},
			{
				// Another login machine type: the login VMs are recreated, the controller stays.
				Config: cluster(`  slurm  = { extra = { MaxJobCount = "20000" } }
  login  = { count = 1, machine_type = "n2-standard-2" }
  labels = { team = "ml" }
`),
				ConfigPlanChecks: update,
				Check: resource.ComposeAggregateTestCheckFunc(
					sameID(env, "hcu-controller", &ctlID, true),
					checkVMs(env, "hcu-controller", "hcu-login-0"),
					checkVM(env, "hcu-login-0", func(inst *computepb.Instance) error {
						if mt := inst.GetMachineType(); !strings.HasSuffix(mt, "/n2-standard-2") {
							return fmt.Errorf("machine type %s, want n2-standard-2", mt)
						}
						return nil
					}),
				),
			},
			{
				// No login VM: they go, ssh goes to the controller.
				Config:           cluster(`  slurm = { extra = { MaxJobCount = "20000" } }` + "\n  login = { count = 0 }\n"),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh hcu-controller --zone us-central1-a --tunnel-through-iap")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes"), knownvalue.ListSizeExact(0)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(sameID(env, "hcu-controller", &ctlID, true), checkVMs(env, "hcu-controller")),
			},
			{
				// A new controller machine type cannot be applied to a running VM: replacement, shown in the plan.
				Config: cluster(`  slurm = { extra = { MaxJobCount = "20000" } }` + "\n  login = { count = 0 }\n  controller = { machine_type = \"n2-standard-16\" }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameID(env, "hcu-controller", &ctlID, false),
					checkVM(env, "hcu-controller", func(inst *computepb.Instance) error {
						if got := inst.GetMachineType(); got[len(got)-len("n2-standard-16"):] != "n2-standard-16" {
							return fmt.Errorf("machine type %s", got)
						}
						return nil
					}),
				),
			},
		},
	})
}

func TestAccTrainingCluster_disappears(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := env.Config(storageConfig("hc-tcd") + clusterConfig("hcd", "file:///opt/hypercompute-agent", fakeSHA, unprotected+"  login = { count = 2 }\n"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				// A login VM deleted by hand is drift: login.count reads 1, the plan puts it back in place.
				Config:             cfg,
				Check:              func(*terraform.State) error { return deleteVM(env, "hcd-login-1") },
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check:            checkVMs(env, "hcd-controller", "hcd-login-0", "hcd-login-1"),
			},
			{
				// The controller deleted by hand: the cluster is gone, the plan creates it again.
				Config:             cfg,
				Check:              func(*terraform.State) error { return deleteVM(env, "hcd-controller") },
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
				Check:            checkVMs(env, "hcd-controller", "hcd-login-0", "hcd-login-1"),
			},
		},
	})
}
