package nodepartition_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// Static and dynamic nodes have ranges of their own, so lowering static_node_count leaves a
// powered-up dynamic node (and its job) alone, and lowering max_dynamic_node_count leaves the
// static nodes alone. A removed node with a job is drained and waited for at most drain_timeout:
// past it the apply fails naming the job (the node stays, drained, and the next plan still shows
// the scale-down), or, with drain_timeout_action = "requeue", has the controller requeue the job,
// deletes the node and warns naming the job.
func TestAccNodePartition_stableNamesAndDrainTimeout(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcn", clusterOpts{})
	notices, restore := nodepartition.RecordNoticesForTest()
	t.Cleanup(restore)
	cfg := func(static, dynamic int, extra string) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", static, dynamic, extra))
	}
	// resume powers up a dynamic node the way slurmctld's ResumeProgram does.
	resume := func(node string) error {
		p, ok := tc.partition(env.Env, "cpu")
		if !ok {
			return fmt.Errorf("no partition key on the controller")
		}
		return power.Resume(context.Background(), power.Env{Clients: env.Clients(), Project: acctest.Project, Zone: acctest.Zone,
			Cluster: cc.Cluster{Name: tc.name}, Partitions: []cc.Partition{p}}, node)
	}
	var dynID uint64
	keepsDynamic := func(*terraform.State) error {
		if id := instanceIDs(env, "hcn-cpu-d0")["hcn-cpu-d0"]; id == 0 || id != dynID {
			return fmt.Errorf("the powered-up dynamic node hcn-cpu-d0 was touched (VM id %d, was %d)", id, dynID)
		}
		return nil
	}
	partitionIs := func(static, dynamic int, drain string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			p, _ := tc.partition(env.Env, "cpu")
			got := ""
			if p.Drain != nil {
				got = p.Drain.Nodes
			}
			if p.StaticNodes != static || p.MaxDynamicNodes != dynamic || got != drain {
				return fmt.Errorf("partition key: %d static, %d dynamic, drain %q; want %d, %d, %q", p.StaticNodes, p.MaxDynamicNodes, got, static, dynamic, drain)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcn-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg(2, 2, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("static_node_names"), knownvalue.StringExact("hcn-cpu-[0-1]")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("dynamic_node_names"), knownvalue.StringExact("hcn-cpu-d[0-1]")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("drain_timeout"), knownvalue.StringExact("10m")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("drain_timeout_action"), knownvalue.StringExact("fail")),
				},
				Check: func(*terraform.State) error {
					// A job runs on hcn-cpu-[0-1] and the powered-up dynamic node hcn-cpu-d0.
					if err := resume("hcn-cpu-d0"); err != nil {
						return err
					}
					dynID = instanceIDs(env, "hcn-cpu-d0")["hcn-cpu-d0"]
					for _, n := range []string{"hcn-cpu-0", "hcn-cpu-1", "hcn-cpu-d0"} {
						tc.agent.RunJob(n, 41, "train-llama")
					}
					return nil
				},
			},
			{
				// static 2 → 1: only hcn-cpu-1 is drained; its job outlasts drain_timeout.
				Config:      cfg(1, 2, "  drain_timeout = \"2s\"\n"),
				ExpectError: acctest.ErrorMatching(`drain_timeout \(2s\) for hcn-cpu-1 to finish: job 41 \(train-llama\) on hcn-cpu-1 and gave up`),
			},
			{
				// The node stays, drained; the plan still shows the scale-down.
				Config:             cfg(1, 2, "  drain_timeout = \"2s\"\n"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// Once the job ends, the next apply deletes hcn-cpu-1. The dynamic node and its
				// job were never part of it.
				PreConfig: func() { tc.agent.SetBusy("hcn-cpu-1", false) },
				Config:    cfg(1, 2, "  drain_timeout = \"2s\"\n"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcn-cpu", "hcn-cpu-0", "hcn-cpu-d0"), keepsDynamic, partitionIs(1, 2, ""),
					func(*terraform.State) error {
						if _, ok := tc.agent.DrainRequested("cpu"); !ok {
							return fmt.Errorf("no drain was asked for")
						}
						d, _ := tc.agent.DrainRequested("cpu")
						if d.Nodes != "hcn-cpu-1" {
							return fmt.Errorf("drained %q, want only hcn-cpu-1", d.Nodes)
						}
						return nil
					}),
			},
			{
				// Scaling static up again leaves the dynamic node alone too.
				Config: cfg(3, 2, "  drain_timeout = \"2s\"\n"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcn-cpu", "hcn-cpu-0", "hcn-cpu-1", "hcn-cpu-2", "hcn-cpu-d0"), keepsDynamic, partitionIs(3, 2, "")),
			},
			{
				// Lowering the dynamic count removes the busy dynamic node, past drain_timeout with
				// "requeue"; the static nodes stay.
				Config: cfg(3, 0, "  drain_timeout = \"1s\"\n  drain_timeout_action = \"requeue\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcn-cpu", "hcn-cpu-0", "hcn-cpu-1", "hcn-cpu-2"), partitionIs(3, 0, ""),
					func(*terraform.State) error {
						all := notices.All()
						if !slices.ContainsFunc(all, func(s string) bool {
							return strings.Contains(s, "hcn-cpu-d0 still ran job 41 (train-llama) on hcn-cpu-d0") && strings.Contains(s, `drain_timeout_action = "requeue" had the controller requeue those jobs`)
						}) {
							return fmt.Errorf("no warning names the job on the deleted node: %q", all)
						}
						return nil
					}),
			},
		},
	})
}

// A VM outside the counts (a node of the earlier naming, where dynamic nodes followed the static
// ones: <prefix>-<static+i>) shows in the plan as a static node too many, and the apply drains and
// deletes it, so no VM is left outside any count. drain_timeout = "0s" waits for no job, but an
// idle node still goes.
func TestAccNodePartition_vmOutsideCountsIsRemoved(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcv", clusterOpts{})
	cfg := env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 1, "  drain_timeout = \"0s\"\n"))
	cl := env.Clients()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcv-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					mustOp(t, cl, func() (op, error) {
						return cl.Instances.Insert(context.Background(), &computepb.InsertInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, InstanceResource: &computepb.Instance{
							Name: proto.String("hcv-cpu-1"), MachineType: proto.String("n2-standard-4"),
							Labels: map[string]string{"hypercompute-cluster": "hcv", "hypercompute-partition": "hcv-cpu"},
							Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
								SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
							NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + acctest.Region + "/subnetworks/" + tc.network + "-subnet")}},
						}})
					})
					return nil
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: checkVMs(env, "hcv-cpu", "hcv-cpu-0"),
			},
		},
	})
}
