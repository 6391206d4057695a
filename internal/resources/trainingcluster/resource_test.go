package trainingcluster_test

import (
	"fmt"
	"regexp"
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
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// checkHash asserts the state's config_hash is the hash of the cluster's own configuration (as
// its controller's metadata holds it, whatever partitions exist) and that the controller reported
// the configuration applied.
func checkHash(env *acctest.Env, f *acctest.FakeAgent, cluster string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		got := s.RootModule().Resources[addr].Primary.Attributes["config_hash"]
		if f.ControllerHash(cluster) == "" {
			return fmt.Errorf("the controller reported no config-hash")
		}
		return checkVM(env, clusterconfig.ControllerName(cluster), func(inst *computepb.Instance) error {
			c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
			if err != nil {
				return err
			}
			if want, err := clusterconfig.OwnHash(c); err != nil || got == "" || got != want {
				return fmt.Errorf("config_hash %q, the cluster's own configuration hashes to %q (%v)", got, want, err)
			}
			return nil
		})(s)
	}
}

func TestAccTrainingCluster_basic(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cfg := storageConfig("hc-tcb") + clusterConfig("hcb", "file:///opt/hypercompute-agent", fakeSHA, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: env.Config(cfg),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/hc-acc-test/zones/us-central1-a/clusters/hcb")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("controller").AtMapKey("name"), knownvalue.StringExact("hcb-controller")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("controller").AtMapKey("internal_ip"), knownvalue.StringRegexp(regexp.MustCompile(`^10\.0\.\d+\.\d+$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("controller").AtMapKey("machine_type"), knownvalue.StringExact("n2-standard-8")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("hcb-login-0"), "internal_ip": knownvalue.StringRegexp(regexp.MustCompile(`^10\.0\.\d+\.\d+$`)),
							"zone": knownvalue.StringExact("us-central1-a"),
						}),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh hcb-login-0 --zone us-central1-a --tunnel-through-iap")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("slurmrestd_endpoint"), knownvalue.StringRegexp(regexp.MustCompile(`^http://10\.0\.\d+\.\d+:6820$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("home").AtMapKey("nfs_version"), knownvalue.StringExact("3")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("slurm").AtMapKey("cluster_name"), knownvalue.StringExact("hcb")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("subnet"), knownvalue.StringExact("https://www.googleapis.com/compute/v1/projects/hc-acc-test/regions/us-central1/subnetworks/hc-tcb-subnet")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels"), knownvalue.MapExact(map[string]knownvalue.Check{
						"hypercompute-cluster": knownvalue.StringExact("hcb"), "hypercompute-role": knownvalue.StringExact("controller"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_protection"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcb-controller", "hcb-login-0"),
					checkHash(env, fake, "hcb"),
					checkVM(env, "hcb-controller", func(inst *computepb.Instance) error {
						md := metadataOf(inst)
						for k, v := range map[string]string{"enable-guest-attributes": "TRUE", "enable-oslogin": "TRUE", "block-project-ssh-keys": "TRUE"} {
							if md[k] != v {
								return fmt.Errorf("metadata %s = %q, want %q", k, md[k], v)
							}
						}
						for _, k := range []string{"startup-script", "hypercompute-node", "hypercompute-cluster"} {
							if md[k] == "" {
								return fmt.Errorf("metadata %s is missing", k)
							}
						}
						c, err := clusterconfig.DecodeCluster([]byte(md["hypercompute-cluster"]))
						if err != nil {
							return err
						}
						if !strings.HasSuffix(c.Mounts.Home.Share, "/home") || c.Mounts.Home.Server == "" {
							return fmt.Errorf("home mount %+v is not the Filestore share", c.Mounts.Home)
						}
						// Recorded for recipe jobs' checkpoint cost on /home.
						if c.Mounts.Home.Tier != "BASIC_HDD" || c.Mounts.Home.CapacityGiB != 1024 {
							return fmt.Errorf("home mount %+v does not record the Filestore instance's tier and capacity", c.Mounts.Home)
						}
						if len(inst.GetNetworkInterfaces()[0].GetAccessConfigs()) != 0 {
							return fmt.Errorf("has a public IP; the default is none")
						}
						if sh := inst.GetShieldedInstanceConfig(); !sh.GetEnableSecureBoot() || !sh.GetEnableVtpm() || !sh.GetEnableIntegrityMonitoring() {
							return fmt.Errorf("shielded VM config %v", sh)
						}
						sa := inst.GetServiceAccounts()[0]
						if slices.Contains(sa.GetScopes(), "https://www.googleapis.com/auth/cloud-platform") || !slices.Contains(sa.GetScopes(), "https://www.googleapis.com/auth/compute") {
							return fmt.Errorf("scopes %v are not the minimal set", sa.GetScopes())
						}
						if inst.GetLabels()["hypercompute-role"] != "controller" || inst.GetLabels()["hypercompute-cluster"] != "hcb" {
							return fmt.Errorf("labels %v", inst.GetLabels())
						}
						return nil
					}),
					checkVM(env, "hcb-login-0", func(inst *computepb.Instance) error {
						md := metadataOf(inst)
						if _, ok := md["hypercompute-cluster"]; ok {
							return fmt.Errorf("a login VM carries the cluster config; only the controller does")
						}
						n, err := clusterconfig.DecodeNode([]byte(md["hypercompute-node"]))
						if err != nil || n.Role != clusterconfig.RoleLogin || n.Controller.Hostname != "hcb-controller" {
							return fmt.Errorf("node config %+v, %v", n, err)
						}
						return nil
					}),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId:           "projects/hc-acc-test/zones/us-central1-a/clusters/hcb",
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hcb", ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// A change that replaces a protected cluster is refused at plan, naming the cause.
				Config:      env.Config(storageConfig("hc-tcb") + clusterConfig("hcb", "file:///opt/hypercompute-agent", fakeSHA, "  controller = { machine_type = \"n2-standard-16\" }\n")),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`deletion_protection: changing controller\.machine_type replaces training cluster`),
			},
			{
				// Removing a protected cluster from the configuration is refused at plan.
				Config:      env.Config(storageConfig("hc-tcb")),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(`deletion_protection: training cluster projects/hc-acc-test/zones/us-central1-a/clusters/hcb is protected`),
			},
			{
				Config:           env.Config(storageConfig("hc-tcb") + clusterConfig("hcb", "file:///opt/hypercompute-agent", fakeSHA, unprotected)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			},
			{
				// The cluster goes; /home stays: storage lifecycles are separate.
				Config: env.Config(storageConfig("hc-tcb")),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env),
					env.CheckCount(acctest.KindFilestore, 1),
				),
			},
		},
	})
}
