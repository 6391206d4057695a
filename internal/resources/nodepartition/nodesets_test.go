package nodepartition_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// nodeSetsConfig is an on-demand node set "ns" (n2-standard-4, one static node) that forms Slurm
// partition ns, and, unless spot is "", a Spot node set of another machine type that joins it.
func nodeSetsConfig(clusterID, spot string) string {
	cfg := fmt.Sprintf(`
resource "hypercompute_node_partition" "base" {
  cluster           = %q
  name              = "ns"
  machine_type      = "n2-standard-4"
  static_node_count = 1
  slurm             = { max_time = "60", default = true }
}
`, clusterID)
	if spot != "" {
		cfg += fmt.Sprintf(`
resource "hypercompute_node_partition" "spot" {
  cluster                = %q
  name                   = "ns-spot"
  machine_type           = "n2-standard-2"
  max_dynamic_node_count = 2
  provisioning           = { model = "spot" }
  slurm                  = { partition = hypercompute_node_partition.base.name, max_time = "60", default = true%s }
}
`, clusterID, spot)
	}
	return cfg
}

// renderedSlurmConf is the slurm.conf the controller's agent renders from what the controller's
// metadata holds now.
func renderedSlurmConf(env *acctest.Env, tc *testCluster) (string, error) {
	inst, ok := instancesSvc(env).Instance(tc.controllerKey)
	if !ok {
		return "", fmt.Errorf("no controller")
	}
	md := map[string]string{}
	for _, it := range inst.GetMetadata().GetItems() {
		md[it.GetKey()] = it.GetValue()
	}
	c, err := cc.DecodeCluster([]byte(md[cc.ClusterKey]))
	if err != nil {
		return "", err
	}
	b, err := cc.RenderSlurmConf(c, cc.PartitionsOf(c.Name, md))
	return string(b), err
}

func checkSlurmConf(env *acctest.Env, tc *testCluster, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		conf, err := renderedSlurmConf(env, tc)
		if err != nil {
			return err
		}
		for _, w := range want {
			if !strings.Contains(conf, w) {
				return fmt.Errorf("slurm.conf lacks %q:\n%s", w, conf)
			}
		}
		if n := strings.Count(conf, "\nPartitionName="); n != 1 {
			return fmt.Errorf("slurm.conf has %d PartitionName lines, want 1:\n%s", n, conf)
		}
		return nil
	}
}

// setControllerKey writes a metadata key on the cluster's controller, as another Terraform state's
// node set would.
func setControllerKey(t *testing.T, env *acctest.Env, cluster, key, value string) {
	t.Helper()
	ctx, cl, vm := context.Background(), env.Clients(), cc.ControllerName(cluster)
	inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: vm})
	if err != nil {
		t.Fatal(err)
	}
	md := inst.GetMetadata()
	md.Items = append(md.Items, &computepb.Items{Key: proto.String(key), Value: proto.String(value)})
	mustOp(t, cl, func() (op, error) {
		return cl.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: vm, MetadataResource: md})
	})
}

// Two node sets of two machine types and provisioning models form one Slurm partition: one
// PartitionName line over both NodeSets, each node set's nodes with its weight (Spot's default 30
// for the spot set until it sets its own); import keeps slurm.partition and slurm.weight; a node
// set whose partition-wide settings differ is refused at plan, whether it is planned beside the
// others or they were applied from elsewhere; and removing one node set leaves the other's nodes
// alone.
func TestAccNodePartition_nodeSets(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hns", clusterOpts{})
	const spotAddr = "hypercompute_node_partition.spot"
	flex := func(maxTime string) string {
		return fmt.Sprintf(`
resource "hypercompute_node_partition" "flex" {
  cluster                = %q
  name                   = "ns-flex"
  machine_type           = "n2-standard-2"
  max_dynamic_node_count = 2
  provisioning           = { model = "standard" }
  slurm                  = { partition = "ns", max_time = %q, default = true }
}
`, tc.id, maxTime)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "ns", "hns-ns"),
		Steps: []resource.TestStep{
			{
				Config: env.Config(nodeSetsConfig(tc.id, " ")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(spotAddr, tfjsonpath.New("slurm").AtMapKey("partition"), knownvalue.StringExact("ns")),
					statecheck.ExpectKnownValue(spotAddr, tfjsonpath.New("slurm").AtMapKey("weight"), knownvalue.Null()),
					statecheck.ExpectKnownValue(spotAddr, tfjsonpath.New("dynamic_node_names"), knownvalue.StringExact("hns-ns-spot-d[0-1]")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hns-ns", "hns-ns-0"),
					checkSlurmConf(env, tc,
						"PartitionName=ns Nodes=ns_nodes,ns-spot_nodes Default=YES OverSubscribe=NO MaxTime=60 ",
						"NodeName=hns-ns-0 CPUs=4 ", "Weight=20 State=CLOUD\n",
						"NodeName=hns-ns-spot-d[0-1] CPUs=2 ", "Weight=30 State=CLOUD\n"),
				),
			},
			{
				// A weight of its own, in place.
				Config: env.Config(nodeSetsConfig(tc.id, ", weight = 5")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(spotAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("hypercompute_node_partition.base", plancheck.ResourceActionNoop),
				}},
				Check: checkSlurmConf(env, tc, "Weight=5 State=CLOUD\n", "Weight=20 State=CLOUD\n"),
			},
			{
				ResourceName:            spotAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateId:           tc.id + "/partitions/ns-spot",
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// A third node set whose max_time differs: refused at plan, naming the attribute and
				// the other node set; nothing is created.
				Config:      env.Config(nodeSetsConfig(tc.id, ", weight = 5") + flex("120")),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`slurm: this node set is part of Slurm partition "ns", and slurm.max_time is "120" here but "60" in node set "ns(-spot)?"`),
			},
			{
				// The same when the other node sets were applied from another state: the plan reads
				// them from the controller.
				PreConfig: func() {
					p := cc.Partition{Schema: cc.SchemaVersion, Name: "other", SlurmPartition: "shared", MachineType: "n2-standard-2",
						MaxDynamicNodes: 1, MaxTime: "30"}
					b, err := cc.EncodePartition(tc.name, p)
					if err != nil {
						t.Fatal(err)
					}
					setControllerKey(t, env, tc.name, cc.PartitionKey("other"), string(b))
				},
				Config:      env.Config(nodeSetsConfig(tc.id, ", weight = 5") + strings.NewReplacer(`partition = "ns"`, `partition = "shared"`, `default = true`, `default = false`).Replace(flex("45"))),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`slurm.max_time is "45" here but "30" in node set "other"`),
			},
			{
				// Removing a node set leaves the other one, its VM and its Slurm partition alone.
				PreConfig: func() { _ = env.RemoveControllerKey(tc.name, cc.PartitionKey("other"))(nil) },
				Config:    env.Config(nodeSetsConfig(tc.id, "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(spotAddr, plancheck.ResourceActionDestroy),
					plancheck.ExpectResourceAction("hypercompute_node_partition.base", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hns-ns", "hns-ns-0"),
					env.CheckControllerKeyGone(tc.name, cc.PartitionKey("ns-spot")),
					checkSlurmConf(env, tc, "PartitionName=ns Nodes=ns_nodes Default=YES "),
				),
			},
		},
	})
}
