package clusterconfig

import (
	"strings"
	"testing"
)

// Only a cluster on the local cloud lets slurmd report the declared node instead of the host's
// hardware; on Google Cloud a node smaller than declared must stay a fault Slurm catches.
func TestConfigOverridesOnlyOnTheLocalRuntime(t *testing.T) {
	c := Cluster{Name: "lr", Controller: Controller{Hostname: ControllerName("lr")},
		Mounts: Mounts{Home: NFSMount{Server: "10.0.0.2", Share: "/home"}},
		Agents: []AgentRef{{Version: "1", URL: "https://example.com/a", SHA256: strings.Repeat("a", 64)}}}
	parts := []Partition{{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 1}}
	for _, local := range []bool{false, true} {
		c.LocalRuntime = local
		conf, err := RenderSlurmConf(c, parts)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(conf), "\nSlurmdParameters=config_overrides\n"); got != local {
			t.Errorf("LocalRuntime=%v: config_overrides present = %v", local, got)
		}
	}
}
