package power_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// Each node a resume could not bring up carries its own reason, the one Slurm is told: the
// Compute API's error for the VMs the zone could not supply, and the configuration's for a node
// of no partition; nodes that were created have none.
func TestResumeReasonsPerNode(t *testing.T) {
	env, pe := setup(t)
	svc := env.Server.Component("instances").(*instances.Service)
	svc.SetCapacity(zone, "n2-standard-4", 1)
	dyn, err := cc.ExpandHostlist(pe.Partitions[0].DynamicNodeNames(pe.Cluster.Name))
	if err != nil {
		t.Fatal(err)
	}
	asked := append(slices.Clone(dyn[:3]), "c-other-1")
	err = power.Resume(context.Background(), pe, cc.CompressHostlist(asked))
	var ne *power.NodesError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v, want a NodesError", err)
	}
	created := vms(env)
	if len(created) != 1 || !slices.Contains(dyn[:3], created[0]) {
		t.Fatalf("VMs %v, want one of %v", created, dyn[:3])
	}
	for _, n := range asked {
		r, failed := ne.Reasons[n]
		switch {
		case n == created[0]:
			if failed {
				t.Errorf("node %s was created but has a reason %q", n, r)
			}
		case n == "c-other-1":
			if !strings.Contains(r, "belong to no partition") {
				t.Errorf("reason of %s: %q", n, r)
			}
		default:
			if !strings.HasPrefix(r, "ZONE_RESOURCE_POOL_EXHAUSTED") {
				t.Errorf("reason of %s: %q, want Compute's ZONE_RESOURCE_POOL_EXHAUSTED", n, r)
			}
		}
	}
	if want := slices.DeleteFunc(slices.Clone(asked), func(n string) bool { return n == created[0] }); !slices.Equal(ne.Nodes, want) {
		t.Errorf("failed nodes %v, want %v", ne.Nodes, want)
	}

	// A zone with nothing left: the operation fails as a whole, and every node has its reason.
	svc.SetCapacity(zone, "n2-standard-4", 0)
	err = power.Resume(context.Background(), pe, dyn[5])
	if !errors.As(err, &ne) || !strings.Contains(ne.Reasons[dyn[5]], "ZONE_RESOURCE_POOL_EXHAUSTED") {
		t.Errorf("resume in a zone without capacity: %v (reasons %v)", err, ne.Reasons)
	}
}
