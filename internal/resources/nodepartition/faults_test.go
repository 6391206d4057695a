package nodepartition_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

func instancesSvc(env *acctest.Env) *instances.Service {
	return env.Server.Component("instances").(*instances.Service)
}

// checkNoMutations asserts that no Compute call changed anything since the counters were reset:
// a refused apply created nothing.
func checkNoMutations(t *testing.T, env *acctest.Env) {
	t.Helper()
	var writes []string
	for m, c := range env.Calls().Methods {
		if c.Mutating && c.Count > 0 {
			writes = append(writes, fmt.Sprintf("%s×%d", m, c.Count))
		}
	}
	if len(writes) > 0 {
		t.Errorf("a refused apply made mutating calls: %s", strings.Join(writes, ", "))
	}
}

// A stockout is reported with the zone, the machine type and what exists, and nothing is kept;
// with allow_partial the VMs the zone could supply are kept and recorded, and the next apply gets
// the rest once capacity returns.
func TestAccNodePartition_stockout(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hco", clusterOpts{})
	svc := instancesSvc(env)
	svc.SetCapacity(acctest.Zone, "n2-standard-4", 3)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hco-cpu"),
		Steps: []resource.TestStep{
			{
				Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 5, 0, "")),
				ExpectError: acctest.ErrorMatching(`zone us-central1-a does not have enough capacity for 5 more n2-standard-4 VMs \(ZONE_RESOURCE_POOL_EXHAUSTED\): ` +
					`the request was all-or-nothing, so none was kept(.|\n)*VMs of partition cpu that exist in us-central1-a: none\.`),
			},
			{
				PreConfig: func() {
					if left := vmNames(env.Env, "hco-cpu"); len(left) > 0 {
						t.Errorf("VMs left by the failed all-or-nothing create: %v", left)
					}
				},
				Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 5, 0, "  allow_partial = true\n")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes_total"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_names"), knownvalue.StringExact("hco-cpu-[0-2]")),
				},
				Check:              checkVMs(env, "hco-cpu", "hco-cpu-0", "hco-cpu-1", "hco-cpu-2"),
				ExpectNonEmptyPlan: true,
			},
			{
				PreConfig: func() { svc.SetCapacity(acctest.Zone, "n2-standard-4", -1) },
				Config:    env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 5, 0, "  allow_partial = true\n")),
				Check:     checkVMs(env, "hco-cpu", "hco-cpu-0", "hco-cpu-1", "hco-cpu-2", "hco-cpu-3", "hco-cpu-4"),
			},
		},
	})
}

// A quota shortfall is found before anything is created and named.
func TestAccNodePartition_quota(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcq", clusterOpts{})
	env.SetQuota(acctest.Region, "N2_CPUS", 8+8) // the controller holds 8
	cfg := env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 3, 0, ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcq-cpu"),
		Steps: []resource.TestStep{
			{
				PreConfig: env.ResetCalls,
				Config:    cfg,
				ExpectError: acctest.ErrorMatching(`regional quota in us-central1 does not cover 3 more n2-standard-4 static nodes: ` +
					`N2_CPUS needs 12, 8 available \(limit 16, in use 8\)`),
			},
			{
				PreConfig: func() {
					checkNoMutations(t, env)
					env.SetQuota(acctest.Region, "N2_CPUS", 64)
				},
				Config: cfg,
				Check:  checkVMs(env, "hcq-cpu", "hcq-cpu-0", "hcq-cpu-1", "hcq-cpu-2"),
			},
		},
	})
}

// With 30% of Compute calls answered 503 — bulkInsert, setMetadata and template inserts among them
// even after their work was done — an apply still ends with each VM exactly once.
func TestAccNodePartition_throttled(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hct", clusterOpts{})
	seed := uint64(11)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hct-cpu"),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				env.ResetCalls()
				env.ApplyFaults(t, core.FaultSpec{Seed: &seed, ErrorRates: []core.ErrorRate{
					{Method: "compute.*", Rate: 0.3, Code: 503},
					{Method: "compute.instances.bulkInsert", Rate: 0.3, Code: 503, AfterHandler: true},
					{Method: "compute.instances.setMetadata", Rate: 0.3, Code: 503, AfterHandler: true},
					{Method: "compute.instanceTemplates.insert", Rate: 0.3, Code: 503, AfterHandler: true},
				}})
			},
			Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 6, 2, "")),
			Check: resource.ComposeAggregateTestCheckFunc(
				checkVMs(env, "hct-cpu", "hct-cpu-0", "hct-cpu-1", "hct-cpu-2", "hct-cpu-3", "hct-cpu-4", "hct-cpu-5"),
				env.CheckCount(instances.KindInstanceTemplates, 1),
				env.CheckErrorsInjected(),
				func(*terraform.State) error {
					env.ClearFaults()
					return nil
				},
			),
		}},
	})
}

// A failed bulk operation fails the apply with the API's words and leaves no VM; the next apply
// converges.
func TestAccNodePartition_failedOperation(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcf", clusterOpts{})
	cfg := env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 4, 0, ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcf-cpu"),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.ApplyFaults(t, core.FaultSpec{FailOperations: []core.FailOperations{{
						Method: "compute.instances.bulkInsert", Count: 1, HTTPStatus: 500,
						Code: "INTERNAL_ERROR", Message: "Internal error while creating instances (injected)",
					}}})
				},
				Config:      cfg,
				ExpectError: acctest.ErrorMatching(`creating 4 n2-standard-4 VMs in us-central1-a failed(.|\n)*INTERNAL_ERROR: Internal error while creating instances \(injected\)`),
			},
			{
				PreConfig: func() {
					if left := vmNames(env.Env, "hcf-cpu"); len(left) > 0 {
						t.Errorf("VMs left by the failed operation: %v", left)
					}
				},
				Config: cfg,
				Check:  checkVMs(env, "hcf-cpu", "hcf-cpu-0", "hcf-cpu-1", "hcf-cpu-2", "hcf-cpu-3"),
			},
		},
	})
}

// The controller's refusal comes back with slurmctld's own words; the apply fails.
func TestAccNodePartition_rejectedByController(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcr", clusterOpts{})
	tc.agent.Reject(func(_ cc.Cluster, parts []cc.Partition) string {
		if slices.ContainsFunc(parts, func(p cc.Partition) bool { return p.MaxTime == "61" }) {
			return `slurmctld: error: Parse error in file /etc/slurm/slurm.conf line 60: "MaxTime=61"`
		}
		return ""
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcr-cpu"),
		Steps: []resource.TestStep{
			{Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 0, ""))},
			{
				Config: env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 0, `  slurm = { max_time = "61" }`)),
				ExpectError: acctest.ErrorMatching(`the controller hcr-controller rejected the configuration with partition cpu and kept the previous one: ` +
					`slurmctld: error: Parse error in file /etc/slurm/slurm.conf line 60: "MaxTime=61"`),
			},
			{
				PreConfig: func() { tc.agent.Reject(nil) },
				Config:    env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 0, "")),
			},
		},
	})
}
