package trainingcluster_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// ownedCluster is the cluster under the ownership tests it shares with storage and buckets.
const (
	ownedCluster = "hco"
	ownedNetwork = "hc-tco"
)

func ownership(t *testing.T, env *acctest.Env) acctest.Ownership {
	id := "projects/" + acctest.Project + "/zones/" + acctest.Zone + "/clusters/" + ownedCluster
	// With Cloud Monitoring on, the refused state must not touch the first's dashboard and policies
	// either (the snapshot covers them), and a finished unfinished create keeps one policy per rule.
	body := unprotected + "  labels = { team = \"ml\" }\n  monitoring = {}\n"
	return acctest.Ownership{
		Factories: factories, Addr: addr, Kind: instances.KindInstances, Count: 2,
		Name:     ownedCluster + " (controller VM " + clusterconfig.ControllerName(ownedCluster) + ")",
		Network:  storageConfig(ownedNetwork),
		Instance: clusterConfig(ownedCluster, "file:///opt/hypercompute-agent", fakeSHA, body),
		// A second state names the first's network and /home, which it does not manage.
		Alone: `
resource "hypercompute_training_cluster" "test" {
  name    = "` + ownedCluster + `"
  network = "` + ownedNetwork + `"
  home    = { filestore = "projects/` + acctest.Project + `/locations/` + acctest.Zone + `/instances/` + ownedNetwork + `-home" }
  agent   = { url = "file:///opt/hypercompute-agent", sha256 = "` + fakeSHA + `" }
` + body + `}
`,
		Import: `
import {
  to = ` + addr + `
  id = "` + id + `"
}
`,
		Patch: "compute.instances.setLabels",
		Labels: func(e *acctest.Env) (map[string]string, error) {
			inst, err := vm(e, clusterconfig.ControllerName(ownedCluster))
			return inst.GetLabels(), err
		},
		OtherLabels: func(e *acctest.Env) ([]map[string]string, error) {
			inst, err := vm(e, clusterconfig.LoginName(ownedCluster, 0))
			return []map[string]string{inst.GetLabels()}, err
		},
		// A node partition's key on the controller: the refused state's destroy would have taken
		// it with the controller.
		Populate: func(t *testing.T) {
			p, err := clusterconfig.EncodePartition(ownedCluster, clusterconfig.Partition{Name: "cpu", MachineType: "n2-standard-4", MaxDynamicNodes: 4})
			if err == nil {
				err = setMetadataKey(env, clusterconfig.ControllerName(ownedCluster), clusterconfig.PartitionKey("cpu"), string(p))
			}
			if err != nil {
				t.Fatal(err)
			}
			settle(t, env)
		},
		NothingLeft: resource.ComposeAggregateTestCheckFunc(checkVMs(env), env.CheckStorageNothingLeft, noCloudMonitoring(env)),
	}
}

// settle waits until the fake agent has answered a change (its reports are in the emulator's
// store too), so that what the emulator holds afterwards changes only when someone else acts.
func settle(t *testing.T, env *acctest.Env) {
	t.Helper()
	var last []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		now, err := json.Marshal(env.Inventory())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(now, last) {
			return
		}
		last = now
	}
	t.Fatal("the emulator's resources kept changing for 30s after a metadata change")
}

// A second Terraform state applying a cluster of the same name is refused before it changes
// anything and records nothing; its destroy leaves the first state's controller and login VMs,
// their disks and every metadata key, and the first state plans no change.
func TestAccTrainingCluster_otherStatesCluster(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	o := ownership(t, env)
	o.TestOtherState(t, env)
	// The refused create never even tried an insert: the controller's read refused it.
	if n := env.CallCount("compute.instances.insert"); n != 2 {
		t.Errorf("compute.instances.insert was called %d times; want 2 (the first state's controller and login VM)", n)
	}
}

// A create stopped after its inserts (removing the marker fails, and the state is forgotten, as
// a crash leaves it) is finished by a plain re-apply, which adopts the marked VMs.
func TestAccTrainingCluster_adoptsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	ownership(t, env).TestUnfinished(t, env)
}

// An unfinished create that is imported instead of re-applied loses its marker at the next apply.
func TestAccTrainingCluster_importsUnfinishedCreate(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	ownership(t, env).TestImportUnfinished(t, env)
}
