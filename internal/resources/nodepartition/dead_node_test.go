package nodepartition_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// An apply waits only for the nodes it creates: an unrelated update (a label) of a partition
// whose one static node died completes at once, with a warning that names the node and its
// agent's last error. Before, the wait covered every static node and ran into the update timeout
// (30 s here, so the old behaviour fails rather than hangs).
func TestAccNodePartition_updateDoesNotWaitForDeadNode(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcu", clusterOpts{})
	notices, restore := nodepartition.RecordNoticesForTest()
	t.Cleanup(restore)
	const dead = "hcu-cpu-0"
	const msg = "slurmd: error: Unable to register: Connection refused"
	cfg := func(team string) string {
		return env.Config(partitionConfig(tc.id, "cpu", "n2-standard-4", 1, 1,
			fmt.Sprintf("  labels = { team = %q }\n  timeouts = { update = \"30s\" }\n", team)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cpu", "hcu-cpu"),
		Steps: []resource.TestStep{
			{
				Config: cfg("a"),
				Check: func(*terraform.State) error {
					// The node dies: slurmd stops answering and its agent reports why.
					tc.agent.SetUnregistered(dead, true)
					svc := instancesSvc(env)
					key := instances.InstanceKey(acctest.Project, acctest.Zone, dead)
					if err := svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrError, msg); err != nil {
						return err
					}
					return svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrPhase, cc.PhaseError)
				},
			},
			{
				Config: cfg("b"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcu-cpu", dead),
					func(*terraform.State) error {
						all := notices.All()
						if !slices.ContainsFunc(all, func(s string) bool {
							return strings.Contains(s, "static node "+dead+" not registered in Slurm") &&
								strings.Contains(s, dead+": VM running, last phase error, last error: "+msg)
						}) {
							return fmt.Errorf("no warning names the dead node and its error: %q", all)
						}
						return nil
					}),
			},
		},
	})
}
