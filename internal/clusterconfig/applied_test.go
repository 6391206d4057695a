package clusterconfig_test

import (
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A health policy that asks for node checks is part of what the controller applies: the hash the
// provider waits for must change with it, and equal Render's (the agent's) for the same metadata.
func TestAppliedHashCoversHealthPolicies(t *testing.T) {
	c := baseCluster("ml")
	part := cc.Partition{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2}
	pb, err := cc.EncodePartition(c.Name, part)
	if err != nil {
		t.Fatal(err)
	}
	md := map[string]string{cc.PartitionKey("cpu"): string(pb)}
	without, err := cc.AppliedHash(c, md)
	if err != nil {
		t.Fatal(err)
	}
	if own, _ := cc.Hash(c, []cc.Partition{part}); own != without {
		t.Fatalf("without health policies AppliedHash %s differs from Hash %s", without, own)
	}
	pol := cc.HealthPolicy{Name: "default", Partitions: []string{"cpu"}, IntervalSeconds: 60,
		Checks: []cc.HealthCheckSpec{{Name: "disk", Schedules: []string{cc.ScheduleBoot, cc.SchedulePeriodic}, Action: "reboot"}}}
	hb, err := cc.EncodeHealthPolicy(pol)
	if err != nil {
		t.Fatal(err)
	}
	md[cc.HealthPolicyKey("default")] = string(hb)
	with, err := cc.AppliedHash(c, md)
	if err != nil {
		t.Fatal(err)
	}
	if with == without {
		t.Fatal("a health policy with node checks does not change the applied hash")
	}
	a, err := cc.Render(c, []cc.Partition{part}, []cc.HealthPolicy{pol})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != with || a.Cluster.Health == nil {
		t.Fatalf("Render's hash %s (health hook %v) differs from AppliedHash %s", a.Hash(), a.Cluster.Health, with)
	}
}
