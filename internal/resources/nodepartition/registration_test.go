package nodepartition_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
)

// An apply waits for its static nodes to register in Slurm: a node that never registers and
// whose agent reports phase=error fails the apply with the node's own error text (not a timeout),
// and once the node registers the next apply replaces the tainted partition and succeeds.
func TestAccNodePartition_nodeFailsToRegister(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hco", clusterOpts{})
	t.Cleanup(nodepartition.SetNodeErrorsAfterForTest(0))
	const bad = "hco-reg-1"
	const msg = "slurmd: fatal: Unable to determine this slurmd's NodeName"
	tc.agent.SetUnregistered(bad, true)

	// The bad node's agent reports its failure as soon as its VM exists, as the compute agent
	// would through the metadata server.
	svc := instancesSvc(env)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		key := instances.InstanceKey(acctest.Project, acctest.Zone, bad)
		for ctx.Err() == nil {
			if _, ok := svc.Instance(key); ok &&
				svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrError, msg) == nil &&
				svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrPhase, cc.PhaseError) == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	cfg := env.Config(partitionConfig(tc.id, "reg", "n2-standard-4", 2, 0, "  timeouts = { create = \"60s\" }\n"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "reg", "hco-reg"),
		Steps: []resource.TestStep{
			{
				Config:      cfg,
				ExpectError: acctest.ErrorMatching(`node hco-reg-1 of partition reg failed to join the cluster \(phase error\): ` + regexp.QuoteMeta(msg)),
			},
			{
				PreConfig: func() { tc.agent.SetUnregistered(bad, false) },
				Config:    cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wait_for_nodes"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_names"), knownvalue.StringExact("hco-reg-[0-1]")),
				},
			},
		},
	})
}
