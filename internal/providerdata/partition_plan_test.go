package providerdata

import "testing"

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
