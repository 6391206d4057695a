package nodepartition_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// ownership is the partition under the ownership tests every controller-key resource shares
// (acctest.KeyOwnership), on an API cluster of its own with a fake agent: beside its key, it owns
// its VMs and instance template, which a refused state must leave as they are.
func ownership(t *testing.T, cluster string) (acctest.KeyOwnership, *acctest.Env, *testCluster) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, cluster, clusterOpts{})
	prefix := cluster + "-cpu"
	return acctest.KeyOwnership{
		Factories: factories,
		Type:      "hypercompute_node_partition", Cluster: cluster, ClusterID: tc.id,
		Name: "cpu", Key: cc.PartitionKey("cpu"), ImportID: tc.id + "/partitions/cpu",
		Resource: func(label, name string) string {
			return fmt.Sprintf(`
resource "hypercompute_node_partition" %q {
  cluster           = %q
  name              = %s
  machine_type      = "n2-standard-4"
  static_node_count = 2
}
`, label, tc.id, name)
		},
		Owned: func(e *acctest.Env) string {
			return fmt.Sprintf("VMs %v, templates %v", vmNames(e.Env, prefix), e.Inventory().Names(instances.KindInstanceTemplates))
		},
		CheckDestroy: checkNoPartitionLeft(env, tc, "cpu", prefix),
	}, env, tc
}

// A second state's create of the same partition is refused with the import hint before any
// mutating call: no instances.delete for the first state's nodes, no template or key rewritten,
// and its destroy leaves them be.
func TestAccNodePartition_otherState(t *testing.T) {
	o, env, _ := ownership(t, "hco")
	o.TestOtherState(t, env)
}

// Two partitions with one name on one cluster fail at plan, or at apply when the name is known
// only then; exactly one partition's nodes exist.
func TestAccNodePartition_duplicateName(t *testing.T) {
	o, env, _ := ownership(t, "hcdup")
	o.TestDuplicateAtPlan(t, env)
	if left := vmNames(env.Env, "hcdup-cpu"); len(left) > 0 {
		t.Fatalf("a plan that failed left VMs: %v", left)
	}
	o.TestDuplicateAtApply(t, env)
}

// A create interrupted after it wrote its key and made its nodes is finished by a plain re-apply,
// which keeps the nodes it made (no delete call).
func TestAccNodePartition_interruptedCreate(t *testing.T) {
	o, env, _ := ownership(t, "hci")
	o.TestInterrupted(t, env)
}

// VMs and a template of a partition whose key is gone (a destroy that did not finish leaves
// them so) are not taken over by a create: it is refused, names them and the import, and makes no
// mutating call; the import it names takes them over.
func TestAccNodePartition_leftoversWithoutKey(t *testing.T) {
	o, env, tc := ownership(t, "hcl")
	cfg := env.Config(o.Resource("test", `"cpu"`))
	var writes int64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             o.CheckDestroy,
		Steps: []resource.TestStep{
			{Config: cfg, Check: env.RemoveControllerKey("hcl", cc.PartitionKey("cpu")), ExpectNonEmptyPlan: true},
			{Config: env.Config("removed {\n  from = " + addr + "\n  lifecycle {\n    destroy = false\n  }\n}\n")},
			{
				PreConfig: func() { writes = mutatingCalls(env) },
				Config:    cfg,
				ExpectError: acctest.ErrorMatching(`(?s)partition "cpu" of cluster ` + tc.id + `: the controller hcl-controller has no key hypercompute-partition-cpu, ` +
					`but its VMs hcl-cpu-\[0-1\] and instance templates hcl-cpu-[0-9a-f]{12} exist.*If it is yours: terraform import hypercompute_node_partition.<name> ` + tc.id + `/partitions/cpu`),
			},
			{
				PreConfig: func() {
					if n := mutatingCalls(env) - writes; n != 0 {
						t.Errorf("the refused create made %d mutating calls: %v", n, env.Calls().Methods)
					}
				},
				Config: cfg + fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", addr, tc.id+"/partitions/cpu"),
				Check: func(*terraform.State) error {
					if _, ok := tc.partition(env.Env, "cpu"); !ok {
						return fmt.Errorf("the imported partition's key was not written again")
					}
					return nil
				},
			},
		},
	})
}

// mutatingCalls counts the mutating calls the emulator served, failed ones included.
func mutatingCalls(env *acctest.Env) int64 { return env.Calls().Mutating }
