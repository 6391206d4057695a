package lustre

import (
	"testing"

	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

func TestMismatch(t *testing.T) {
	d := &desired{project: "p1", zone: "us-central1-a", name: "data", inst: &wire.Instance{
		Filesystem: "lustrefs", CapacityGib: 36000, Network: "projects/p1/global/networks/ml", PerUnitStorageThroughput: 1000,
	}}
	same := &wire.Instance{Filesystem: "lustrefs", CapacityGib: 36000, Network: "https://www.googleapis.com/compute/v1/projects/p1/global/networks/ml",
		PerUnitStorageThroughput: 1000, State: wire.StateCreating, Labels: map[string]string{}}
	if m := d.mismatch(same); m != "" {
		t.Errorf("the instance this plan creates differs in %s", m)
	}
	for attr, change := range map[string]func(*wire.Instance){
		"filesystem":                  func(i *wire.Instance) { i.Filesystem = "other" },
		"per_unit_storage_throughput": func(i *wire.Instance) { i.PerUnitStorageThroughput = 500 },
		"capacity_gib":                func(i *wire.Instance) { i.CapacityGib = 45000 },
		"network":                     func(i *wire.Instance) { i.Network = "projects/p2/global/networks/ml" },
		"labels":                      func(i *wire.Instance) { i.Labels = map[string]string{"x": "y"} },
	} {
		other := *same
		change(&other)
		if m := d.mismatch(&other); m != attr {
			t.Errorf("changing %s: mismatch = %q", attr, m)
		}
	}
}

func TestUpdateMask(t *testing.T) {
	cur := &wire.Instance{CapacityGib: 36000, Description: "a", Labels: map[string]string{"k": "v"}}
	want := &wire.Instance{CapacityGib: 45000, Description: "a"}
	got := updateMask(cur, want)
	if len(got) != 2 || got[0] != "capacity_gib" || got[1] != "labels" {
		t.Errorf("updateMask = %v", got)
	}
}
