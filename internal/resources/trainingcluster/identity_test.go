package trainingcluster_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

const authURL = "https://www.googleapis.com/auth/"

// scopesAre checks the VM's service account ("default": the project's Compute Engine default one, as
// Compute resolves it) and scopes.
func scopesAre(env *acctest.Env, vm, email string, scopes ...string) resource.TestCheckFunc {
	return checkVM(env, vm, func(inst *computepb.Instance) error {
		sas := inst.GetServiceAccounts()
		want := make([]string, len(scopes))
		for i, s := range scopes {
			want[i] = authURL + s
		}
		sameEmail := len(sas) == 1 && (sas[0].GetEmail() == email ||
			email == "default" && strings.HasSuffix(sas[0].GetEmail(), "-compute@developer.gserviceaccount.com"))
		if !sameEmail || !slices.Equal(sas[0].GetScopes(), want) {
			return fmt.Errorf("service accounts %v, want %s with %v", sas, email, want)
		}
		return nil
	})
}

// Each role runs with its own identity: by default the controller alone has Compute, the login VMs
// read storage only, and the nodes (through the cluster's config, which partitions build their
// templates from) write storage without Compute; a role's override changes that role alone.
func TestAccTrainingCluster_roleIdentities(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := func(extra string) string {
		return env.Config(storageConfig("hc-tci") + clusterConfig("hci", "file:///opt/hypercompute-agent", fakeSHA, unprotected+extra))
	}
	nodes := func(email string, scopes ...string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			raw, ok := env.ControllerKey("hci", clusterconfig.ClusterKey)
			if !ok {
				return fmt.Errorf("no %s on the controller", clusterconfig.ClusterKey)
			}
			c, err := clusterconfig.DecodeCluster([]byte(raw))
			if err != nil {
				return err
			}
			id := c.Cloud.Identity(clusterconfig.RoleCompute)
			want := make([]string, len(scopes))
			for i, s := range scopes {
				want[i] = authURL + s
			}
			if id.Email != email || !slices.Equal(id.Scopes, want) {
				return fmt.Errorf("nodes would run as %+v, want %s with %v", id, email, want)
			}
			return nil
		}
	}
	var ctlID uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					rememberID(env, "hci-controller", &ctlID),
					scopesAre(env, "hci-controller", "default", "compute", "devstorage.read_only", "logging.write", "monitoring.write"),
					scopesAre(env, "hci-login-0", "default", "devstorage.read_only", "logging.write", "monitoring.write"),
					nodes("default", "devstorage.read_write", "logging.write", "monitoring.write"),
				),
			},
			{
				// The nodes' identity is not the controller's VM: an in-place update that rolls nodes.
				Config: cfg(`  service_accounts = { compute = { email = "nodes@hc-acc-test.iam.gserviceaccount.com" } }` + "\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_config_hash")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameID(env, "hci-controller", &ctlID, true),
					nodes("nodes@hc-acc-test.iam.gserviceaccount.com", "devstorage.read_write", "logging.write", "monitoring.write"),
				),
			},
			{
				// The login VMs' scopes are their VMs': a replacement.
				Config: cfg(`  service_accounts = {
    compute = { email = "nodes@hc-acc-test.iam.gserviceaccount.com" }
    login   = { scopes = ["` + authURL + `devstorage.read_write", "` + authURL + `logging.write"] }
  }
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					scopesAre(env, "hci-login-0", "default", "devstorage.read_write", "logging.write"),
					scopesAre(env, "hci-controller", "default", "compute", "devstorage.read_only", "logging.write", "monitoring.write"),
				),
			},
		},
	})
}

// A cluster an earlier version created runs every VM with the one shared list of scopes and has no
// per-role identities in its config. Upgrading plans an in-place update that records them, never a
// replacement, and its VMs keep the scopes they run with.
func TestAccTrainingCluster_identitiesFromEarlierVersion(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	old := []string{"compute", "devstorage.read_only", "logging.write", "monitoring.write"}
	quoted := make([]string, len(old))
	for i, s := range old {
		quoted[i] = `"` + authURL + s + `"`
	}
	cfg := func(extra string) string {
		return env.Config(storageConfig("hc-tco") + clusterConfig("hco", "file:///opt/hypercompute-agent", fakeSHA, unprotected+extra))
	}
	// What the earlier version wrote: the shared identity alone.
	forget := env.EditControllerKey("hco", clusterconfig.ClusterKey, func(v string) (string, bool) {
		var doc map[string]any
		if err := json.Unmarshal([]byte(v), &doc); err != nil {
			return v, true
		}
		cloud, _ := doc["cloud"].(map[string]any)
		delete(cloud, "identities")
		b, _ := json.Marshal(doc)
		return string(b), true
	})
	var ctlID uint64
	vmsKeep := resource.ComposeAggregateTestCheckFunc(
		scopesAre(env, "hco-controller", "default", old...),
		scopesAre(env, "hco-login-0", "default", old...),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg("  service_account = { scopes = [" + strings.Join(quoted, ", ") + "] }\n"),
				Check:  resource.ComposeAggregateTestCheckFunc(rememberID(env, "hco-controller", &ctlID), vmsKeep),
			},
			{
				PreConfig: func() {
					if err := forget(nil); err != nil {
						t.Fatal(err)
					}
				},
				// The earlier version's users set no scopes; the refreshed state has no service_accounts.
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(sameID(env, "hco-controller", &ctlID, true), vmsKeep),
			},
			{
				Config:           cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}
