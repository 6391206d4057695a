package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// The controller applies a partition, a health policy and a recipe job whose create has not
// finished exactly as a finished one: the creation marker the provider keeps in the key until its
// create ends (cc.CreateMarkerField) is invisible to every decoder of the agent.
func TestControllerReadsKeysWithTheCreationMarker(t *testing.T) {
	c := cc.Cluster{Name: "tc", Controller: cc.Controller{Hostname: "tc-controller"}, Mounts: cc.Mounts{Home: cc.NFSMount{Server: "10.0.0.2", Share: "/home"}},
		Agents: []cc.AgentRef{{Version: "1.0", URL: "/opt/agent", SHA256: strings.Repeat("a", 64)}}}
	cluster, _ := cc.EncodeCluster(c)
	part, _ := cc.EncodePartition("tc", cc.Partition{Name: "debug", MachineType: "e2-standard-2", MaxDynamicNodes: 2})
	policy, _ := cc.EncodeHealthPolicy(cc.HealthPolicy{Name: "default", Checks: []cc.HealthCheckSpec{{Name: cc.CheckDisk}}})
	job, _ := json.Marshal(recipes.Job{Name: "train", Generation: "g1", RunDir: "/home/jobs/train", MaxSteps: 10})
	plain := map[string]string{cc.ClusterKey: string(cluster), cc.PartitionKey("debug"): string(part),
		cc.HealthPolicyKey("default"): string(policy), cc.JobKey("train"): string(job)}
	marked := map[string]string{cc.ClusterKey: string(cluster)}
	for k, v := range plain {
		if k != cc.ClusterKey {
			marked[k], _ = cc.WithCreateMarker(v)
		}
	}
	for name, attrs := range map[string]map[string]string{"plain": plain, "marked": marked} {
		_, parts, err := DesiredConfig(attrs)
		if err != nil || len(parts) != 1 {
			t.Fatalf("%s: partitions %v, %v", name, parts, err)
		}
		policies, err := cc.DecodeHealthPolicies(attrs)
		if err != nil || len(policies) != 1 {
			t.Fatalf("%s: policies %v, %v", name, policies, err)
		}
		if _, err := decodeJob("train", attrs[cc.JobKey("train")]); err != nil {
			t.Fatalf("%s: job: %v", name, err)
		}
	}
	_, p1, _ := DesiredConfig(plain)
	_, p2, _ := DesiredConfig(marked)
	h1, _ := cc.DecodeHealthPolicies(plain)
	h2, _ := cc.DecodeHealthPolicies(marked)
	j1, _ := decodeJob("train", plain[cc.JobKey("train")])
	j2, _ := decodeJob("train", marked[cc.JobKey("train")])
	if !reflect.DeepEqual(p1, p2) || !reflect.DeepEqual(h1, h2) || !reflect.DeepEqual(j1, j2) {
		t.Errorf("the marker changed what the controller reads:\n%+v %+v %+v\n%+v %+v %+v", p1, h1, j1, p2, h2, j2)
	}
}
