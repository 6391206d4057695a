package clusterconfig_test

import (
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Every VM role gets the same contract with the agent; only the controller carries the cluster.
func TestVMMetadata(t *testing.T) {
	s := shapes()[3] // a4x-arm64: compute nodes run the arm64 agent
	ctl, err := cc.VMMetadata(s.cluster, cc.RoleController, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	node, err := cc.VMMetadata(s.cluster, cc.RoleCompute, &s.parts[0], true)
	if err != nil {
		t.Fatal(err)
	}
	for name, md := range map[string]map[string]string{"controller": ctl, "compute": node} {
		if md[cc.GuestAttributesKey] != "TRUE" || md[cc.BlockProjectSSHKeysKey] != "TRUE" {
			t.Errorf("%s: guest attributes and SSH-key blocking must be on: %v", name, md)
		}
		if !strings.HasPrefix(md[cc.StartupScriptKey], "#!") {
			t.Errorf("%s: startup-script is not the launcher: %.40q", name, md[cc.StartupScriptKey])
		}
		if _, err := cc.DecodeNode([]byte(md[cc.NodeConfigKey])); err != nil {
			t.Errorf("%s: node config does not decode: %v", name, err)
		}
	}
	if ctl[cc.OSLoginKey] != "FALSE" || node[cc.OSLoginKey] != "TRUE" {
		t.Errorf("OS Login: controller %q (want FALSE), node %q (want TRUE)", ctl[cc.OSLoginKey], node[cc.OSLoginKey])
	}
	if _, err := cc.DecodeCluster([]byte(ctl[cc.ClusterKey])); err != nil {
		t.Errorf("the controller's cluster config does not decode: %v", err)
	}
	if _, ok := node[cc.ClusterKey]; ok {
		t.Error("a compute node must not carry the cluster config")
	}
	if !strings.Contains(node[cc.StartupScriptKey], agentARM.SHA256) || strings.Contains(ctl[cc.StartupScriptKey], agentARM.SHA256) {
		t.Error("the compute node's launcher must fetch the arm64 agent and the controller's the x86_64 one")
	}
	_, err = cc.VMMetadata(s.cluster, cc.RoleCompute, nil, true)
	checkErr(t, "compute without partition", err, "needs its partition")
}
