package trainingcluster_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// loginVMs are the VMs named name, in every zone, by zone.
func loginVMs(env *acctest.Env, name string) (map[string]*computepb.Instance, error) {
	out := map[string]*computepb.Instance{}
	for _, it := range env.Inventory().Kinds[instances.KindInstances] {
		if it.Name != name {
			continue
		}
		var inst computepb.Instance
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(it.Resource, &inst); err != nil {
			return nil, err
		}
		out[lastPathSegment(inst.GetZone())] = &inst
	}
	return out, nil
}

func lastPathSegment(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[i+1:]
		}
	}
	return s
}

// checkLogin asserts that VM name exists in zone only, with a public IP or not, these labels
// (besides the product's) and this enable-oslogin metadata, and remembers its id.
func checkLogin(env *acctest.Env, name, zone string, publicIP bool, labels map[string]string, osLogin string, id *uint64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		vms, err := loginVMs(env, name)
		if err != nil {
			return err
		}
		inst := vms[zone]
		if len(vms) != 1 || inst == nil {
			return fmt.Errorf("VM %s is in zones %v, want only %s", name, slices.Collect(maps.Keys(vms)), zone)
		}
		if got := len(inst.GetNetworkInterfaces()[0].GetAccessConfigs()) > 0; got != publicIP {
			return fmt.Errorf("VM %s: public IP %v, want %v", name, got, publicIP)
		}
		want := maps.Clone(labels)
		want["hypercompute-cluster"], want["hypercompute-role"] = "hcl", "login"
		if !maps.Equal(inst.GetLabels(), want) {
			return fmt.Errorf("VM %s: labels %v, want %v", name, inst.GetLabels(), want)
		}
		if md := metadataOf(inst); md[clusterconfig.OSLoginKey] != osLogin {
			return fmt.Errorf("VM %s: %s = %q, want %q", name, clusterconfig.OSLoginKey, md[clusterconfig.OSLoginKey], osLogin)
		}
		*id = inst.GetId()
		return nil
	}
}

func sameLoginID(env *acctest.Env, zone string, id *uint64, same bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		before := *id
		vms, err := loginVMs(env, "hcl-login-0")
		if err != nil || vms[zone] == nil {
			return fmt.Errorf("hcl-login-0 not in %s (%v)", zone, err)
		}
		if (vms[zone].GetId() == before) != same {
			return fmt.Errorf("hcl-login-0 has id %d, before %d: want the same VM %v", vms[zone].GetId(), before, same)
		}
		return nil
	}
}

// The login VMs' own zone, labels, public IP and OS Login: created as asked, read back by import,
// labels and OS Login changed in place, public IP and zone by recreating the login VM; the
// controller keeps the cluster's options and is never replaced.
func TestAccTrainingCluster_loginOptions(t *testing.T) {
	env := acctest.New(t)
	fake := acctest.StartFakeAgent(t, env.Env)
	cluster := func(login string) string {
		return env.Config(storageConfig("hc-tcl") + clusterConfig("hcl", "file:///opt/hypercompute-agent", fakeSHA,
			unprotected+"  labels = { team = \"ml\" }\n  login = {\n"+login+"  }\n"))
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	var ctlID, loginID uint64
	controllerKeeps := checkVM(env, "hcl-controller", func(inst *computepb.Instance) error {
		if len(inst.GetNetworkInterfaces()[0].GetAccessConfigs()) != 0 {
			return fmt.Errorf("the controller got a public IP; only login VMs asked for one")
		}
		if _, ok := inst.GetLabels()["pool"]; ok || inst.GetLabels()["team"] != "ml" {
			return fmt.Errorf("controller labels %v: login.labels are the login VMs' only", inst.GetLabels())
		}
		if md := metadataOf(inst); md[clusterconfig.OSLoginKey] != "TRUE" {
			return fmt.Errorf("controller %s = %q; login.os_login is the login VMs' only", clusterconfig.OSLoginKey, md[clusterconfig.OSLoginKey])
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cluster(`    zone             = "us-central1-b"
    labels           = { pool = "dev", team = "research" }
    enable_public_ip = true
    os_login         = false
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes").AtSliceIndex(0).AtMapKey("zone"), knownvalue.StringExact("us-central1-b")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh hcl-login-0 --zone us-central1-b")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("zone"), knownvalue.StringExact("us-central1-a")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					rememberID(env, "hcl-controller", &ctlID),
					checkLogin(env, "hcl-login-0", "us-central1-b", true, map[string]string{"team": "research", "pool": "dev"}, "FALSE", &loginID),
					controllerKeeps,
					checkHash(env, fake, "hcl"),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hcl", ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"},
			},
			{
				// Labels and OS Login: in place, the same login VM.
				Config: cluster(`    zone             = "us-central1-b"
    labels           = { pool = "gpu" }
    enable_public_ip = true
`),
				ConfigPlanChecks: update,
				Check: resource.ComposeAggregateTestCheckFunc(
					sameLoginID(env, "us-central1-b", &loginID, true),
					checkLogin(env, "hcl-login-0", "us-central1-b", true, map[string]string{"team": "ml", "pool": "gpu"}, "TRUE", &loginID),
					sameID(env, "hcl-controller", &ctlID, true),
				),
			},
			{
				// No public IP: taken away in place, the same login VM.
				Config: cluster(`    zone   = "us-central1-b"
    labels = { pool = "gpu" }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_command"), knownvalue.StringExact("gcloud compute ssh hcl-login-0 --zone us-central1-b --tunnel-through-iap")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameLoginID(env, "us-central1-b", &loginID, true),
					checkLogin(env, "hcl-login-0", "us-central1-b", false, map[string]string{"team": "ml", "pool": "gpu"}, "TRUE", &loginID),
					sameID(env, "hcl-controller", &ctlID, true),
				),
			},
			{
				// And back: added in place.
				Config: cluster(`    zone             = "us-central1-b"
    labels           = { pool = "gpu" }
    enable_public_ip = true
`),
				ConfigPlanChecks: update,
				Check: resource.ComposeAggregateTestCheckFunc(
					sameLoginID(env, "us-central1-b", &loginID, true),
					checkLogin(env, "hcl-login-0", "us-central1-b", true, map[string]string{"team": "ml", "pool": "gpu"}, "TRUE", &loginID),
				),
			},
			{
				// Back to the cluster's zone (and its public IPs: none), two VMs: the old one goes
				// from us-central1-b, a new one is made in us-central1-a.
				Config: cluster(`    count  = 2
    labels = { pool = "gpu" }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login_nodes").AtSliceIndex(1).AtMapKey("zone"), knownvalue.StringExact("us-central1-a")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("login").AtMapKey("zone"), knownvalue.StringExact("us-central1-a")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameLoginID(env, "us-central1-a", &loginID, false),
					checkLogin(env, "hcl-login-0", "us-central1-a", false, map[string]string{"team": "ml", "pool": "gpu"}, "TRUE", &loginID),
					checkLogin(env, "hcl-login-1", "us-central1-a", false, map[string]string{"team": "ml", "pool": "gpu"}, "TRUE", &loginID),
					checkVMs(env, "hcl-controller", "hcl-login-0", "hcl-login-1"),
					sameID(env, "hcl-controller", &ctlID, true),
				),
			},
		},
	})
}
