package providerdata

import "testing"

func TestPlannedNetworks(t *testing.T) {
	var p PlannedNetworks
	if _, ok := p.SubnetRange("projects/p/regions/r/subnetworks/s"); ok {
		t.Fatal("an empty registry knows a subnet")
	}
	p.PlanSubnets(map[string]string{"https://www.googleapis.com/compute/v1/projects/p/regions/r/subnetworks/s": "10.0.0.0/20"})
	if r, ok := p.SubnetRange("projects/p/regions/r/subnetworks/s"); !ok || r != "10.0.0.0/20" {
		t.Fatalf("a self link's range read back by relative name: %q %v", r, ok)
	}
	p.PlanSubnets(map[string]string{"projects/p/regions/r/subnetworks/s": "10.0.0.0/19"})
	if r, _ := p.SubnetRange("projects/p/regions/r/subnetworks/s"); r != "10.0.0.0/19" {
		t.Fatalf("a re-plan did not replace the range: %q", r)
	}
	p.PlanCluster("projects/p/zones/z/clusters/c", ClusterNetwork{Network: "https://x/compute/v1/projects/p/global/networks/n", Subnetwork: "projects/p/regions/r/subnetworks/s"})
	if n, ok := p.Cluster("projects/p/zones/z/clusters/c"); !ok || n.Network != "projects/p/global/networks/n" || n.Subnetwork != "projects/p/regions/r/subnetworks/s" {
		t.Fatalf("cluster network %+v %v", n, ok)
	}
}
