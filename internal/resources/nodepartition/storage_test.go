package nodepartition_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// storageBlueprint is a cluster with two extra file systems made by this configuration — a
// Filestore share at /data that login VMs skip and a Managed Lustre at /scratch — and the
// partitions given.
func storageBlueprint(partitions ...string) string {
	return acctest.ClusterConfig("hst", "https://example.com/hypercompute-agent", strings.Repeat("ab", 32), `  deletion_protection = false
  storage = [
    { mount_path = "/data", filestore = hypercompute_filestore.data.id, login = false },
    { mount_path = "/scratch", lustre = hypercompute_lustre.scratch.id },
  ]
`) + `
resource "hypercompute_filestore" "data" {
  name                = "hst-data"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}

resource "hypercompute_lustre" "scratch" {
  name                = "hst-scratch"
  zone                = "us-central1-a"
  filesystem          = "scratch"
  network             = hypercompute_network.net.name
  deletion_protection = false
}
` + strings.Join(partitions, "\n")
}

func storagePartition(res, name, storage string) string {
	return fmt.Sprintf(`
resource "hypercompute_node_partition" %q {
  cluster           = hypercompute_training_cluster.c.id
  name              = %q
  machine_type           = "n2-standard-4"
  max_dynamic_node_count = 2
%s
}
`, res, name, storage)
}

// templateMounts are the mount targets in the node config a partition's nodes boot with (its
// instance template's), and the node config itself.
func templateMounts(env *acctest.Env, partition string) ([]string, cc.Node, error) {
	v, ok := env.ControllerKey("hst", cc.PartitionKey(partition))
	if !ok {
		return nil, cc.Node{}, fmt.Errorf("no partition %s on the controller", partition)
	}
	p, err := cc.DecodePartition("hst", []byte(v))
	if err != nil {
		return nil, cc.Node{}, err
	}
	var tmpl computepb.InstanceTemplate
	if ok, err := env.Store().Get(instances.KindInstanceTemplates, p.InstanceTemplate, &tmpl); !ok || err != nil {
		return nil, cc.Node{}, fmt.Errorf("no template %s (%v)", p.InstanceTemplate, err)
	}
	n, err := cc.DecodeNode([]byte(tfutil.MetadataMap(tmpl.GetProperties().GetMetadata())[cc.NodeConfigKey]))
	var out []string
	for _, e := range cc.MountEntries(n.Mounts) {
		out = append(out, e.FSType+" "+e.Target)
	}
	return out, n, err
}

func expectMounts(env *acctest.Env, partition string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, _, err := templateMounts(env, partition)
		if err != nil || !slices.Equal(got, want) {
			return fmt.Errorf("partition %s's nodes mount %v (%v), want %v", partition, got, err, want)
		}
		return nil
	}
}

// The cluster's extra storage reaches the nodes that chose it and only them: a partition with
// storage = ["/scratch"] boots with /home and the Lustre at /scratch, one without a choice with
// every mount, login VMs without the entry marked login = false. A path the cluster lacks is
// refused at plan, naming storage[i], with no mutating call (at apply, before anything of the
// partition is created, when the cluster is created in the same apply); a change of the choice is an
// in-place update that gives the nodes a new template; cluster and partition import back.
func TestAccNodePartition_storage(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	only := storagePartition("test", "gpu", `  storage = ["/scratch"]`)
	all := storagePartition("all", "cpu", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				// The cluster is created by this apply, so its paths are known only then: the
				// partition is refused at apply, before it creates anything.
				Config:      env.Config(storageBlueprint(storagePartition("test", "gpu", `  storage = ["/nope"]`))),
				ExpectError: acctest.ErrorMatching(`storage\[0\]: /nope is not one of the cluster's storage or bucket mount paths`),
			},
			{
				PreConfig: func() {
					if n := env.Inventory().Names(instances.KindInstanceTemplates); len(n) > 0 {
						t.Errorf("the refused partition left templates: %v", n)
					}
					if _, ok := env.ControllerKey("hst", cc.PartitionKey("gpu")); ok {
						t.Error("the refused partition wrote its key")
					}
				},
				Config: env.Config(storageBlueprint(only, all)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("storage"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("/scratch")})),
					statecheck.ExpectKnownValue("hypercompute_node_partition.all", tfjsonpath.New("storage"), knownvalue.ListSizeExact(0)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					expectMounts(env, "gpu", "nfs /home", "lustre /scratch"),
					expectMounts(env, "cpu", "nfs /home", "nfs /data", "lustre /scratch"),
					func(*terraform.State) error {
						_, n, err := templateMounts(env, "cpu")
						if err != nil {
							return err
						}
						for _, e := range n.Mounts.Extra {
							if e.MountPoint == "/data" && (e.NFS == nil || e.NFS.Server == "" || !strings.HasSuffix(e.Instance, "/instances/hst-data")) {
								return fmt.Errorf("/data is %+v, not the Filestore instance's share", e)
							}
							if e.MountPoint == "/scratch" && (e.Lustre == nil || e.Lustre.FSName != "scratch") {
								return fmt.Errorf("/scratch is %+v, not the Managed Lustre instance", e)
							}
						}
						return nil
					},
					func(*terraform.State) error {
						inst, err := env.Clients().Instances.Get(t.Context(), &computepb.GetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: "hst-login-0"})
						if err != nil {
							return err
						}
						n, err := cc.DecodeNode([]byte(tfutil.MetadataMap(inst.GetMetadata())[cc.NodeConfigKey]))
						if err != nil {
							return err
						}
						var got []string
						for _, e := range cc.MountEntries(n.Mounts) {
							got = append(got, e.Target)
						}
						if !slices.Equal(got, []string{"/home", "/scratch"}) {
							return fmt.Errorf("the login VM mounts %v, want /home and /scratch (/data has login = false)", got)
						}
						return nil
					},
				),
			},
			{
				PreConfig:   env.ResetCalls,
				Config:      env.Config(storageBlueprint(storagePartition("test", "gpu", `  storage = ["/scratch", "/datasets"]`), all)),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`(?s)storage\[1\]: /datasets is not one of the cluster's storage or bucket mount paths \(\[/data /scratch\]\)`),
			},
			{
				PreConfig:   func() { env.RequireNoMutations(t, "the refused plan") },
				Config:      env.Config(storageBlueprint(storagePartition("test", "gpu", `  storage = ["/home"]`), all)),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`storage\[0\]: /home is mounted on every node`),
			},
			{
				PreConfig: func() { env.RequireNoMutations(t, "the refused plan") },
				Config:    env.Config(storageBlueprint(storagePartition("test", "gpu", `  storage = ["/data", "/scratch"]`), all)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("hypercompute_training_cluster.c", plancheck.ResourceActionNoop),
				}},
				Check: expectMounts(env, "gpu", "nfs /home", "nfs /data", "lustre /scratch"),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId:           "projects/hc-acc-test/zones/us-central1-a/clusters/hst/partitions/gpu",
				ImportStateVerifyIgnore: []string{"timeouts", "force_scale_down", "wait_for_nodes", "allow_partial", "drain_timeout", "drain_timeout_action", "rolling_update"},
			},
			{
				ResourceName: "hypercompute_training_cluster.c", ImportState: true, ImportStateVerify: true,
				ImportStateId:           "projects/hc-acc-test/zones/us-central1-a/clusters/hst",
				ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"},
			},
		},
	})
}
