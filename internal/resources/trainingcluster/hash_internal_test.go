package trainingcluster

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The provider expects clusterconfig.Hash of its cluster; the agent reports the hash of the files
// it rendered from the cluster with the defaults filled in. They must agree, or every apply would
// wait for a hash that never comes.
func TestExpectedHashMatchesAgentRendering(t *testing.T) {
	s := &desired{
		name: "hc", project: "p", zone: "us-central1-a", region: "us-central1",
		network: "https://www.googleapis.com/compute/v1/projects/p/global/networks/n",
		subnet:  "https://www.googleapis.com/compute/v1/projects/p/regions/us-central1/subnetworks/n-subnet",
		home:    homeDesired{server: "10.0.0.2", share: "/home"}, loginCount: 1,
		slurm: clusterconfig.SlurmSettings{Prolog: "#!/bin/sh\ntrue\n", Extra: map[string]string{"MaxJobCount": "20000"}},
		agent: clusterconfig.AgentRef{Version: "dev", URL: "/opt/agent", SHA256: strings.Repeat("ab", 32)},
	}
	c := s.cluster(s.placeholderMounts())
	parts := []clusterconfig.Partition{
		{Name: "b", MachineType: "n2-standard-4", MaxDynamicNodes: 2},
		{Name: "a", MachineType: "g2-standard-4", StaticNodes: 1},
	}
	want, err := clusterconfig.Hash(c, parts)
	if err != nil {
		t.Fatal(err)
	}
	files, err := clusterconfig.RenderFiles(c.WithDefaults(), []clusterconfig.Partition{parts[1], parts[0]})
	if err != nil {
		t.Fatal(err)
	}
	if got := clusterconfig.HashFiles(files); got != want {
		t.Fatalf("agent-side hash %s, provider expects %s", got, want)
	}
	// Cloud facts are not Slurm configuration: they never change the hash.
	c2 := c
	cloud := *c.Cloud
	cloud.Labels = map[string]string{"team": "ml"}
	c2.Cloud = &cloud
	if h, _ := clusterconfig.Hash(c2, parts); h != want {
		t.Fatal("labels changed the config hash")
	}
}
