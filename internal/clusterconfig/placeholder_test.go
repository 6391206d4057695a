package clusterconfig_test

import (
	"context"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// A training cluster exists before any node partition: slurmctld must start with its
// configuration alone, with nothing schedulable, and the first partition replaces the placeholder.
func TestSlurmctldStartsWithoutPartitions(t *testing.T) {
	slurmcheck.Require(t)
	c := baseCluster("empty")
	conf, err := cc.RenderSlurmConf(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := slurmcheck.Validate(context.Background(), conf, nil, cc.RenderCgroupConf())
	if err != nil {
		t.Fatalf("slurmctld refuses a cluster without partitions: %v\n%s", err, conf)
	}
	p, ok := r.Partition(cc.PlaceholderPartition)
	if !ok || p.State != "INACTIVE" || p.Fields["Hidden"] != "YES" || p.Nodes != cc.PlaceholderNode("empty") {
		t.Errorf("placeholder partition %+v, want an inactive hidden partition of node %s", p, cc.PlaceholderNode("empty"))
	}
	withPart, err := cc.RenderSlurmConf(c, []cc.Partition{{Name: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(withPart), cc.PlaceholderPartition) {
		t.Errorf("a cluster with a partition still has the placeholder:\n%s", withPart)
	}
}
