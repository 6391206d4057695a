package trainingcluster

import (
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Drift is what the controller runs that nobody declared: files its agent reports changed, or an
// applied hash that is not the hash of the metadata's configuration. A pass in progress and a
// configuration the controller rejected (the failed apply said so) are not drift.
func TestDriftIsOnlyRealDrift(t *testing.T) {
	s := &desired{
		name: "hc", project: "p", zone: "us-central1-a", region: "us-central1",
		network: "https://www.googleapis.com/compute/v1/projects/p/global/networks/n",
		subnet:  "https://www.googleapis.com/compute/v1/projects/p/regions/us-central1/subnetworks/n-subnet",
		home:    homeDesired{server: "10.0.0.2", share: "/home"},
		agent:   clusterconfig.AgentRef{Version: "dev", URL: "/opt/agent", SHA256: strings.Repeat("ab", 32)},
	}
	c := s.cluster(s.placeholderMounts())
	enc, err := clusterconfig.EncodeCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	part, err := clusterconfig.EncodePartition("hc", clusterconfig.Partition{Name: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, err := clusterconfig.Hash(c, []clusterconfig.Partition{{Name: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 2}})
	if err != nil {
		t.Fatal(err)
	}
	ctl := &computepb.Instance{Name: proto.String("hc-controller"), Metadata: &computepb.Metadata{Items: tfutil.MetadataItems(map[string]string{
		clusterconfig.ClusterKey: string(enc), clusterconfig.PartitionKey("cpu"): string(part),
	})}}
	obs := func(attrs map[string]string) observed {
		r := tfutil.Report{Attrs: attrs}
		r.Phase, r.ConfigHash, r.ConfigError = attrs["phase"], attrs["config-hash"], attrs["config-error"]
		return observed{ctl: ctl, report: r, cluster: &c}
	}
	cases := []struct {
		name  string
		attrs map[string]string
		drift int
	}{
		{"runs what is declared", map[string]string{"phase": "ready", "config-hash": want}, 0},
		{"files edited", map[string]string{"phase": "ready", "config-hash": want, "config-drift": want + " /etc/slurm/slurm.conf"}, 1},
		{"another hash applied", map[string]string{"phase": "ready", "config-hash": "abc"}, 1},
		{"a pass in progress", map[string]string{"phase": "configuring", "config-hash": "abc"}, 0},
		{"rejected", map[string]string{"phase": "ready", "config-hash": "abc", "config-error": want + " error: bad"}, 0},
	}
	for _, tc := range cases {
		if got := obs(tc.attrs).drift(); len(got) != tc.drift {
			t.Errorf("%s: drift %q, want %d entries", tc.name, got, tc.drift)
		}
	}
}
