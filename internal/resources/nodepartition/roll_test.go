package nodepartition_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// setClusterAgent rewrites the cluster's configuration on the controller with another agent
// build, as hypercompute_training_cluster does for a new agent.sha256.
func setClusterAgent(t *testing.T, env *acctest.Env, tc *testCluster, sha string) {
	t.Helper()
	ctx := context.Background()
	cl, err := gcp.NewClients(ctx, gcp.Config{Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, EmulatorHost: env.Host, UserAgent: "nodepartition-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	vm := tfutil.VM{Project: acctest.Project, Zone: acctest.Zone, Name: cc.ControllerName(tc.name)}
	if _, err := tfutil.EditMetadata(ctx, cl, vm, nil, func(md map[string]string) {
		c, err := cc.DecodeCluster([]byte(md[cc.ClusterKey]))
		if err != nil {
			t.Error(err)
			return
		}
		c.Agents[0].SHA256 = sha
		b, err := cc.EncodeCluster(c)
		if err != nil {
			t.Error(err)
			return
		}
		md[cc.ClusterKey] = string(b)
	}); err != nil {
		t.Fatal(err)
	}
}

// nodeAgent is the agent digest a node VM boots with.
func nodeAgent(env *acctest.Env, vm string) string {
	inst, ok := env.Server.Component("instances").(*instances.Service).Instance(instances.InstanceKey(acctest.Project, acctest.Zone, vm))
	if !ok {
		return ""
	}
	n, err := cc.DecodeNode([]byte(tfutil.MetadataMap(inst.GetMetadata())[cc.NodeConfigKey]))
	if err != nil {
		return ""
	}
	return n.Agent.SHA256
}

// A cluster change that affects nodes (a new agent build) shows in the partition's plan — through
// cluster_node_config_hash in the same plan, or through the refresh when it is not given — and is
// applied as a rolling replacement: every static node is recreated from the new template, never
// more than max_unavailable at once, and a node whose job outlasts job_timeout fails the apply
// with on_job_timeout = "fail", staying drained.
func TestAccNodePartition_rollingReplacement(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcq", clusterOpts{})
	static := []string{"hcq-cpu-0", "hcq-cpu-1", "hcq-cpu-2"}
	cfg := func(hash, roll string) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 3, 1, fmt.Sprintf("  cluster_node_config_hash = %q\n  rolling_update = { %s }\n", hash, roll)))
	}
	newSHA, newerSHA, newestSHA := strings.Repeat("12", 32), strings.Repeat("34", 32), strings.Repeat("56", 32)

	// The fewest static VMs that existed at any moment of an apply.
	var mu sync.Mutex
	fewest := len(static)
	svc := env.Server.Component("instances").(*instances.Service)
	stop := env.Store().Watch(func(c core.Change) {
		if c.Kind != instances.KindInstances {
			return
		}
		// The node VMs' own agent: a VM that runs reports ready (the fake agent plays only the
		// controller).
		go func(key string) {
			if inst, ok := svc.Instance(key); ok && strings.HasPrefix(inst.GetName(), "hcq-cpu-") &&
				svc.GuestAttributes(key).Values[cc.GuestAttributeNamespace][cc.GuestAttrPhase] == "" {
				_ = svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrPhase, cc.PhaseReady)
			}
		}(c.Key)
		n := len(instanceIDs(env, static...))
		mu.Lock()
		fewest = min(fewest, n)
		mu.Unlock()
	})
	t.Cleanup(stop)
	resetFewest := func() { mu.Lock(); fewest = len(static); mu.Unlock() }
	var before map[string]uint64
	remember := func(*terraform.State) error { before = instanceIDs(env, static...); resetFewest(); return nil }
	rolled := func(sha string, atMostDown int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			now := instanceIDs(env, static...)
			for _, n := range static {
				if now[n] == 0 || now[n] == before[n] {
					return fmt.Errorf("%s was not recreated (id %d, before %d)", n, now[n], before[n])
				}
				if got := nodeAgent(env, n); got != sha {
					return fmt.Errorf("%s boots agent %.8s, want %.8s", n, got, sha)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if down := len(static) - fewest; down > atMostDown {
				return fmt.Errorf("%d static nodes were down at once; max_unavailable allows %d", down, atMostDown)
			}
			if p, _ := tc.partition(env.Env, "cpu"); p.Drain != nil {
				return fmt.Errorf("the roll left a drain in the partition's key: %+v", *p.Drain)
			}
			return nil
		}
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcq-cpu"),
		Steps: []resource.TestStep{
			{Config: cfg("v1", ""), Check: remember},
			{
				// The cluster's node_config_hash changed with the agent: the plan shows it.
				PreConfig:        func() { setClusterAgent(t, env, tc, newSHA) },
				Config:           cfg("v2", ""),
				ConfigPlanChecks: update,
				Check:            resource.ComposeAggregateTestCheckFunc(rolled(newSHA, 1), remember),
			},
			{
				// Not passed the hash, the partition sees the change at its refresh.
				PreConfig:          func() { setClusterAgent(t, env, tc, newerSHA) },
				Config:             cfg("v2", `max_unavailable = "67%"`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           cfg("v2", `max_unavailable = "67%"`),
				ConfigPlanChecks: update,
				Check:            resource.ComposeAggregateTestCheckFunc(rolled(newerSHA, 2), remember),
			},
			{
				// A job that outlasts job_timeout, with on_job_timeout = "fail": the apply names the
				// node, which stays drained; nothing was deleted.
				PreConfig: func() {
					tc.agent.SetBusy("hcq-cpu-0", true)
					setClusterAgent(t, env, tc, newestSHA)
				},
				Config:      cfg("v3", `job_timeout = "2s", on_job_timeout = "fail"`),
				ExpectError: acctest.ErrorMatching(`jobs on hcq-cpu-0 still run after rolling_update.job_timeout \(2s\)`),
				Check: func(*terraform.State) error {
					if now := instanceIDs(env, static...); now["hcq-cpu-0"] != before["hcq-cpu-0"] {
						return fmt.Errorf("the busy node was replaced")
					}
					return nil
				},
			},
			{
				// Once the job ended, the next apply finishes the roll.
				PreConfig: func() { tc.agent.SetBusy("hcq-cpu-0", false) },
				Config:    cfg("v3", `job_timeout = "2s", on_job_timeout = "fail"`),
				Check:     resource.ComposeAggregateTestCheckFunc(rolled(newestSHA, 1), remember),
			},
			{
				// With on_job_timeout = "requeue" (the default) a job past job_timeout is requeued
				// by the controller and its node replaced.
				PreConfig: func() {
					tc.agent.SetBusy("hcq-cpu-1", true)
					setClusterAgent(t, env, tc, newSHA)
				},
				Config: cfg("v4", `job_timeout = "1s"`),
				// (The fake agent empties a node only for a drain with Requeue: without it this
				// apply would wait for the busy node until its timeout.)
				Check: rolled(newSHA, 1),
			},
		},
	})
}
