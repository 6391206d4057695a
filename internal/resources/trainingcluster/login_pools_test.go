package trainingcluster_test

import (
	"fmt"
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

// A login pool next to the cluster's own login VM: its VMs are named after it, in its own zone with
// its own public IP, labels, OS Login and machine type; import reads it back; labels = {} plans as
// unset; a pool's new machine type recreates only its VMs; a removed pool's VMs are deleted.
func TestAccTrainingCluster_loginPools(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cluster := func(pools string) string {
		return env.Config(storageConfig("hc-tcp") + clusterConfig("hcl", "file:///opt/hypercompute-agent", fakeSHA,
			unprotected+"  labels = { team = \"ml\" }\n"+pools))
	}
	const pool = `  login_pools = [{
    name             = "gpu-dev"
    count            = 2
    zone             = "us-central1-b"
    machine_type     = "%s"
    enable_public_ip = true
    os_login         = false
    startup_script   = "#!/bin/sh\necho gpu-dev\n"
%s  }]
`
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	var ownID, poolID, ctlID uint64
	poolVM := func(i int, machine string) resource.TestCheckFunc {
		name := fmt.Sprintf("hcl-login-gpu-dev-%d", i)
		return resource.ComposeAggregateTestCheckFunc(
			checkLogin(env, name, "us-central1-b", true, map[string]string{"team": "ml"}, "FALSE", &poolID),
			func(*terraform.State) error {
				vms, err := loginVMs(env, name)
				if err != nil {
					return err
				}
				if mt := lastPathSegment(vms["us-central1-b"].GetMachineType()); mt != machine {
					return fmt.Errorf("VM %s is a %s, want %s", name, mt, machine)
				}
				// The pool's own startup script, which the agent runs after bootstrap.
				n, err := clusterconfig.DecodeNode([]byte(metadataOf(vms["us-central1-b"])[clusterconfig.NodeConfigKey]))
				if err != nil || n.StartupScript != "#!/bin/sh\necho gpu-dev\n" {
					return fmt.Errorf("VM %s: node config startup script %q, %v", name, n.StartupScript, err)
				}
				return nil
			})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cluster(fmt.Sprintf(pool, "n2-standard-2", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes"), knownvalue.ListExact([]knownvalue.Check{
						loginNode("hcl-login-0", "us-central1-a"), loginNode("hcl-login-gpu-dev-0", "us-central1-b"), loginNode("hcl-login-gpu-dev-1", "us-central1-b"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_pools").AtSliceIndex(0).AtMapKey("labels"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh hcl-login-0 --zone us-central1-a --tunnel-through-iap")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcl-controller", "hcl-login-0", "hcl-login-gpu-dev-0", "hcl-login-gpu-dev-1"),
					checkLogin(env, "hcl-login-0", "us-central1-a", false, map[string]string{"team": "ml"}, "TRUE", &ownID),
					checkVM(env, "hcl-login-0", func(inst *computepb.Instance) error {
						if n, err := clusterconfig.DecodeNode([]byte(metadataOf(inst)[clusterconfig.NodeConfigKey])); err != nil || n.StartupScript != "" {
							return fmt.Errorf("the login block's VM runs startup script %q (%v); the script is the pool's", n.StartupScript, err)
						}
						return nil
					}),
					poolVM(0, "n2-standard-2"), poolVM(1, "n2-standard-2"),
					rememberID(env, "hcl-controller", &ctlID),
					checkHash(env, fake, "hcl"),
					checkVM(env, "hcl-controller", func(inst *computepb.Instance) error {
						c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
						if err != nil {
							return err
						}
						// The controller's Prometheus scrapes them; partitions size subnets with them.
						if vms := c.LoginVMs(); len(vms) != 3 || vms[2] != "hcl-login-gpu-dev-1" {
							return fmt.Errorf("the cluster config lists login VMs %v", vms)
						}
						return nil
					}),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hcl", ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"},
			},
			{
				// labels = {} is the same as unset.
				Config:   cluster(fmt.Sprintf(pool, "n2-standard-2", "    labels           = {}\n")),
				PlanOnly: true,
			},
			{
				// Another machine type for the pool: its VMs are recreated, the cluster's own login
				// VM and the controller stay.
				Config:           cluster(fmt.Sprintf(pool, "n2-standard-4", "")),
				ConfigPlanChecks: update,
				Check: resource.ComposeAggregateTestCheckFunc(
					poolVM(0, "n2-standard-4"), poolVM(1, "n2-standard-4"),
					sameLoginID(env, "us-central1-a", &ownID, true),
					sameID(env, "hcl-controller", &ctlID, true),
				),
			},
			{
				// The pool removed: its VMs go.
				Config:           cluster(""),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes"), knownvalue.ListExact([]knownvalue.Check{loginNode("hcl-login-0", "us-central1-a")})),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkVMs(env, "hcl-controller", "hcl-login-0"),
					sameID(env, "hcl-controller", &ctlID, true),
				),
			},
		},
	})
}

func loginNode(name, zone string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"name": knownvalue.StringExact(name), "zone": knownvalue.StringExact(zone), "internal_ip": knownvalue.NotNull(),
	})
}
