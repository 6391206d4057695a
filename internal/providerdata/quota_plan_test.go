package providerdata

import "testing"

// Needs are summed per project and region; a re-plan of a resource replaces its need; once the
// operation applies something, plans count only their own need.
func TestPlannedQuota(t *testing.T) {
	var q PlannedQuota
	a := QuotaNeed{Project: "p", Region: "us-central1", What: "partition a", Metrics: map[string]float64{"CPUS": 8}}
	b := QuotaNeed{Project: "p", Region: "us-central1", What: "partition b", Metrics: map[string]float64{"CPUS": 16}}
	east := QuotaNeed{Project: "p", Region: "us-east4", What: "partition e", Metrics: map[string]float64{"CPUS": 32}}
	if others := q.Plan("a", a); len(others) != 0 {
		t.Errorf("first plan sees %v", others)
	}
	q.Plan("e", east)
	if others := q.Plan("b", b); len(others) != 1 || others[0].What != "partition a" {
		t.Errorf("b sees %v, want partition a only (e is in another region)", others)
	}
	a.Metrics = map[string]float64{"CPUS": 4}
	q.Plan("a", a) // a re-plan replaces a's need
	if others := q.Plan("b", b); len(others) != 1 || others[0].Metrics["CPUS"] != 4 {
		t.Errorf("after a's re-plan b sees %v", others)
	}
	q.Applying()
	if others := q.Plan("b", b); others != nil {
		t.Errorf("after an apply began b sees %v", others)
	}
}
