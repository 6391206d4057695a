package providerdata

import (
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A partition planned for one cluster is planned for that cluster only; nothing is planned before
// a partition plans.
func TestPlannedPartitions(t *testing.T) {
	var p PlannedPartitions
	const a, b = "projects/p/zones/z/clusters/a", "projects/p/zones/z/clusters/b"
	if p.Planned(a, "gpu") {
		t.Error("an empty record has gpu planned")
	}
	p.Plan(a, "gpu")
	if !p.Planned(a, "gpu") {
		t.Error("gpu planned for cluster a is not recorded")
	}
	if p.Planned(b, "gpu") || p.Planned(a, "cpu") {
		t.Error("the record answers for another cluster or another name")
	}
}

// A node set that joins another Slurm partition plans that partition, not its own name as one.
func TestPlannedNodeSets(t *testing.T) {
	var p PlannedPartitions
	const a = "projects/p/zones/z/clusters/a"
	p.PlanNodeSet(a, cc.Partition{Name: "gpu-spot", SlurmPartition: "gpu", MaxTime: "60"})
	if !p.Planned(a, "gpu-spot") || p.Planned(a, "gpu") {
		t.Error("Planned answers for Slurm partitions, not node sets")
	}
	if !p.PlannedSlurm(a, "gpu") || p.PlannedSlurm(a, "gpu-spot") {
		t.Error("PlannedSlurm does not answer for the Slurm partition the node set joins")
	}
	p.Plan(a, "cpu")
	if got := p.NodeSets(a); len(got) != 2 || got[0].Name != "cpu" || got[1].MaxTime != "60" {
		t.Errorf("NodeSets = %+v", got)
	}
}
