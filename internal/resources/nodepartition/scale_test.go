package nodepartition_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

func instanceIDs(env *acctest.Env, names ...string) map[string]uint64 {
	svc := env.Server.Component("instances").(*instances.Service)
	out := map[string]uint64{}
	for _, n := range names {
		if inst, ok := svc.Instance(instances.InstanceKey(acctest.Project, acctest.Zone, n)); ok {
			out[n] = inst.GetId()
		}
	}
	return out
}

// Scaling up creates only the missing nodes, with one bulkInsert, and leaves the others alone;
// scaling down drains the highest-numbered nodes and deletes each once idle: a node running a job
// stays until the job ends.
func TestAccNodePartition_scale(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcs", clusterOpts{})
	cfg := func(static int) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", static, 2, ""))
	}
	var before map[string]uint64

	// The busy node's job: the fake agent reports hcs-cpu-3 drained only once the job ended.
	var mu sync.Mutex
	var observations []string
	jobDone := make(chan struct{})
	runJob := func() {
		tc.agent.SetBusy("hcs-cpu-3", true)
		go func() {
			defer close(jobDone)
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if _, ok := tc.agent.DrainRequested("cpu"); ok {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Idle drained nodes go at once; the busy one must stay while its job runs.
			deadline = time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) && slices.Contains(vmNames(env.Env, "hcs-cpu"), "hcs-cpu-2") {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			mu.Lock()
			observations = append(observations, fmt.Sprintf("while the job ran: %v", vmNames(env.Env, "hcs-cpu")))
			mu.Unlock()
			tc.agent.SetBusy("hcs-cpu-3", false)
		}()
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcs-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg(2),
				Check: func(*terraform.State) error {
					before = instanceIDs(env, "hcs-cpu-0", "hcs-cpu-1")
					env.ResetCalls()
					return nil
				},
			},
			{
				Config:           cfg(4),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes_total"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("dynamic_node_names"), knownvalue.StringExact("hcs-cpu-d[0-1]")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcs-cpu", "hcs-cpu-0", "hcs-cpu-1", "hcs-cpu-2", "hcs-cpu-3"),
					func(*terraform.State) error {
						if n := env.CallCount("compute.instances.bulkInsert"); n != 1 {
							return fmt.Errorf("scale up made %d bulkInsert calls, want 1", n)
						}
						if n := env.CallCount("compute.instances.insert") + env.CallCount("compute.instances.delete"); n != 0 {
							return fmt.Errorf("scale up made %d per-VM insert/delete calls", n)
						}
						if after := instanceIDs(env, "hcs-cpu-0", "hcs-cpu-1"); !mapsEqual(before, after) {
							return fmt.Errorf("existing nodes were replaced: %v -> %v", before, after)
						}
						return nil
					},
				),
			},
			{
				PreConfig: runJob,
				Config:    cfg(2),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcs-cpu", "hcs-cpu-0", "hcs-cpu-1"),
					func(*terraform.State) error {
						<-jobDone
						mu.Lock()
						defer mu.Unlock()
						want := fmt.Sprintf("while the job ran: %v", []string{"hcs-cpu-0", "hcs-cpu-1", "hcs-cpu-3"})
						if len(observations) != 1 || observations[0] != want {
							return fmt.Errorf("observed %q; want %q (the busy node stays, the idle one goes)", observations, want)
						}
						p, _ := tc.partition(env.Env, "cpu")
						if p.StaticNodes != 2 || p.MaxDynamicNodes != 2 || p.Drain != nil {
							return fmt.Errorf("final partition config %+v; want 2 static, 2 dynamic, no drain", p)
						}
						return nil
					},
				),
			},
			{
				// force_scale_down deletes at once, without waiting for a drain.
				PreConfig: func() { tc.agent.SetBusy("hcs-cpu-1", true) },
				Config:    env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 2, "  force_scale_down = true\n")),
				Check:     checkVMs(env, "hcs-cpu", "hcs-cpu-0"),
			},
		},
	})
}

func mapsEqual(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A partition torn down behind Terraform's back (VMs deleted, key removed) is dropped at refresh
// and created again by the next apply; a static node deleted by hand is put back.
func TestAccNodePartition_disappears(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcd", clusterOpts{})
	cfg := env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 2, 0, ""))
	cl := env.Clients()
	ctx := context.Background()
	deleteVM := func(name string) error {
		op, err := cl.Instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: name})
		if err != nil {
			return err
		}
		_, err = cl.WaitCompute(ctx, op)
		return err
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcd-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					return deleteVM("hcd-cpu-1")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcd-cpu", "hcd-cpu-0", "hcd-cpu-1"),
					func(*terraform.State) error {
						// Now everything goes: both VMs and the partition's key.
						for _, n := range []string{"hcd-cpu-0", "hcd-cpu-1"} {
							if err := deleteVM(n); err != nil {
								return err
							}
						}
						ctl, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: cc.ControllerName("hcd")})
						if err != nil {
							return err
						}
						var items []*computepb.Items
						for _, it := range ctl.GetMetadata().GetItems() {
							if it.GetKey() != cc.PartitionKey("cpu") {
								items = append(items, it)
							}
						}
						op, err := cl.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{Project: acctest.Project, Zone: acctest.Zone,
							Instance: cc.ControllerName("hcd"), MetadataResource: &computepb.Metadata{Fingerprint: proto.String(ctl.GetMetadata().GetFingerprint()), Items: items}})
						if err != nil {
							return err
						}
						_, err = cl.WaitCompute(ctx, op)
						return err
					},
				),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
				Check:            checkVMs(env, "hcd-cpu", "hcd-cpu-0", "hcd-cpu-1"),
			},
		},
	})
}

// Spot and flex-start nodes carry their scheduling; changing the provisioning model replaces the
// partition (visible in the plan), and only the current template remains. Flex-start nodes are
// dynamic only (static ones are refused at plan), so its scheduling is checked on the template
// Slurm's resume program creates them from.
func TestAccNodePartition_spotThenFlexStart(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcp", clusterOpts{})
	svc := instancesSvc(env)
	scheduling := func(vm string) (*computepb.Scheduling, error) {
		inst, ok := svc.Instance(instances.InstanceKey(acctest.Project, "us-central1-c", vm))
		if !ok {
			return nil, fmt.Errorf("VM %s does not exist in us-central1-c", vm)
		}
		return inst.GetScheduling(), nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcp-cpu"),
		Steps: []resource.TestStep{
			{
				Config: env.Config(partitionConfig(tc.id, "cpu", "g2-standard-4", 2, 2, `  zone = "us-central1-c"
  provisioning = { model = "spot" }
`)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("provisioning").AtMapKey("termination_action"), knownvalue.StringExact("DELETE")),
				},
				Check: func(*terraform.State) error {
					sc, err := scheduling("hcp-cpu-1")
					if err != nil {
						return err
					}
					if sc.GetProvisioningModel() != "SPOT" || sc.GetInstanceTerminationAction() != "DELETE" || sc.GetAutomaticRestart() {
						return fmt.Errorf("spot node scheduling %v", sc)
					}
					return nil
				},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: tc.id + "/partitions/cpu", ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				Config: env.Config(partitionConfig(tc.id, "cpu", "g2-standard-4", 0, 4, `  zone = "us-central1-c"
  provisioning = {
    model            = "flex_start"
    max_run_duration = "2h"
  }
`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					env.CheckCount(instances.KindInstanceTemplates, 1),
					func(s *terraform.State) error {
						if vms := vmNames(env.Env, "hcp-cpu"); len(vms) != 0 {
							return fmt.Errorf("the spot partition's static VMs remain: %v", vms)
						}
						link := s.RootModule().Resources[addr].Primary.Attributes["instance_template"]
						tpl, err := env.Clients().InstanceTemplates.Get(context.Background(), &computepb.GetInstanceTemplateRequest{
							Project: acctest.Project, InstanceTemplate: link[strings.LastIndex(link, "/")+1:]})
						if err != nil {
							return fmt.Errorf("instance template %q: %w", link, err)
						}
						sc := tpl.GetProperties().GetScheduling()
						if sc.GetProvisioningModel() != "FLEX_START" || sc.GetMaxRunDuration().GetSeconds() != 7200 || sc.GetInstanceTerminationAction() != "DELETE" {
							return fmt.Errorf("flex-start template scheduling %v", sc)
						}
						return nil
					},
				),
			},
		},
	})
}
