package clusterconfig_test

import (
	"slices"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestDriftReportRoundTrips(t *testing.T) {
	v := cc.FormatDrift("abc", []string{"/etc/slurm/slurm.conf", "/etc/slurm/gres.conf"})
	applied, paths, ok := cc.ParseDrift(v)
	if !ok || applied != "abc" || !slices.Equal(paths, []string{"/etc/slurm/gres.conf", "/etc/slurm/slurm.conf"}) {
		t.Fatalf("ParseDrift(%q) = %q %v %v", v, applied, paths, ok)
	}
	if _, _, ok := cc.ParseDrift(""); ok {
		t.Fatal("no report parsed as drift")
	}
	if _, _, ok := cc.ParseDrift("abc "); ok {
		t.Fatal("a report without paths parsed as drift")
	}
}

// The node config hash moves with what nodes boot with (the agent, the controller's address) and
// not with Slurm settings, which configless nodes take from slurmctld; the cluster's own hash is
// the reverse, and neither moves with partitions or the rewrite generation.
func TestNodeConfigHashFollowsWhatNodesBootWith(t *testing.T) {
	base := shapes()[0].cluster
	hashes := func(c cc.Cluster) (own, node string) {
		t.Helper()
		var err error
		if own, err = cc.OwnHash(c); err != nil {
			t.Fatal(err)
		}
		if node, err = cc.NodeConfigHash(c); err != nil {
			t.Fatal(err)
		}
		return own, node
	}
	own0, node0 := hashes(base)

	agent := base
	agent.Agents = slices.Clone(base.Agents)
	agent.Agents[0].SHA256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if own, node := hashes(agent); own != own0 || node == node0 {
		t.Errorf("a new agent build: own hash changed %v (want false), node hash changed %v (want true)", own != own0, node != node0)
	}
	ctl := base
	ctl.Controller.Address = "10.0.0.99"
	if _, node := hashes(ctl); node == node0 {
		t.Error("a new controller address left the node config hash alone")
	}
	slurm := base
	slurm.Slurm.Extra = map[string]string{"MaxJobCount": "12345"}
	if own, node := hashes(slurm); own == own0 || node != node0 {
		t.Errorf("a Slurm setting: own hash changed %v (want true), node hash changed %v (want false)", own != own0, node != node0)
	}
	// A Filestore /home's tier and capacity are recorded for checkpoint costs, not used by nodes:
	// resizing the share must not roll every partition.
	home := base
	home.Mounts.Home.Tier, home.Mounts.Home.CapacityGiB = "ZONAL", 10240
	if own, node := hashes(home); own != own0 || node != node0 {
		t.Errorf("/home's tier and capacity: own hash changed %v, node hash changed %v (want neither)", own != own0, node != node0)
	}
	rewrite := base
	rewrite.Rewrite = 7
	if own, node := hashes(rewrite); own != own0 || node != node0 {
		t.Error("the rewrite generation changed a hash")
	}
}
