package clusterconfig_test

import (
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestSharedPathsFollowTheHomeMountPoint(t *testing.T) {
	m := cc.Mounts{Home: cc.NFSMount{Server: "10.0.0.2", Share: "/share"}}
	if m.SharedMungeKey() != "/home/.hypercompute/secrets/munge.key" || m.SharedSlurmConf() != "/home/.hypercompute/slurm/slurm.conf" {
		t.Errorf("default /home: %s %s", m.SharedMungeKey(), m.SharedSlurmConf())
	}
	m.Home.MountPoint = "/shared/home"
	if m.SharedDir() != "/shared/home/.hypercompute" {
		t.Errorf("SharedDir = %s", m.SharedDir())
	}
}

// Login and compute agents learn the cluster's layout from their node
// config; the default layout adds nothing to it.
func TestNodeConfigCarriesACustomLayout(t *testing.T) {
	c := baseCluster("lay")
	n, _ := cc.NewNode(c, cc.RoleLogin, nil)
	b, _ := cc.RenderNodeConfig(n)
	if strings.Contains(string(b), "layout") {
		t.Errorf("a default layout is written to the node config:\n%s", b)
	}
	c.Layout = cc.Layout{SlurmdSpoolDir: "/mnt/localssd/slurmd"}
	n, err := cc.NewNode(c, cc.RoleLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = cc.RenderNodeConfig(n)
	back, err := cc.DecodeNode(b)
	if err != nil || back.Layout.WithDefaults().SlurmdSpoolDir != "/mnt/localssd/slurmd" || back.Layout.WithDefaults().ConfDir != "/etc/slurm" {
		t.Errorf("layout round trip: %+v %v", back.Layout, err)
	}
	back.MountTimeout = -1
	if _, err := cc.RenderNodeConfig(back); err == nil {
		t.Error("a negative mount timeout was accepted")
	}
}
