package trainingcluster_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A bad accounting block is refused at plan, naming the attribute, with no API call; a good one plans.
func TestAccTrainingCluster_accountingInput(t *testing.T) {
	env := acctest.New(t)
	const base = `  name = "hc"
  home = { nfs_source = "10.0.0.2:/home" }
  agent = { url = "file:///opt/hypercompute-agent", sha256 = "abababababababababababababababababababababababababababababababab" }
`
	cases := []struct{ name, body, want string }{
		{"negative retention", `  accounting = { retention = { job_days = -1 } }`, `accounting\.retention\.job_days value must be between 1 and 36500, got: -1`},
		{"zero retention", `  accounting = { retention = { event_days = 0 } }`, `accounting\.retention\.event_days value must be between 1 and 36500, got: 0`},
		{"QoS name with a comma", `  accounting = { qos = ["high,low"] }`, `accounting\.qos\[0\].*QoS name "high,low" is not valid`},
		{"upper-case QoS", `  accounting = { qos = ["High"] }`, `accounting\.qos\[0\].*QoS name "High" is not valid`},
		{"QoS listed twice", `  accounting = { qos = ["high", "high"] }`, `accounting\.qos: "high" is listed twice`},
		{"Slurm's own QoS", `  accounting = { qos = ["normal"] }`, `accounting\.qos\[0\].*"normal"`},
		{"external database without a password file", `  accounting = { database = { host = "db.internal" } }`, `password_file.*required`},
		{"relative password file", `  accounting = { database = { host = "db.internal", password_file = "secrets/db" } }`,
			`accounting\.database\.password_file.*"secrets/db" is not a clean absolute path`},
		{"database port out of range", `  accounting = { database = { host = "db.internal", port = 70000, password_file = "/etc/db" } }`,
			`accounting\.database\.port value must be between 1 and 65535, got: 70000`},
		{"accounting key in slurm.extra", "  accounting = {}\n  slurm = { extra = { AccountingStorageType = \"accounting_storage/none\" } }",
			`slurm: slurm\.conf setting AccountingStorageType is set by the accounting block`},
		{"fair-share key in slurm.extra", "  accounting = { fair_share = true }\n  slurm = { extra = { PriorityType = \"priority/basic\" } }",
			`slurm: slurm\.conf setting PriorityType is set by the accounting block`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config:      env.Config("resource \"hypercompute_training_cluster\" \"test\" {\n  network = \"hc-net\"\n" + base + tc.body + "\n}\n"),
					PlanOnly:    true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
		})
	}
	t.Run("a full block plans", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: factories,
			Steps: []resource.TestStep{{
				Config: env.Config("resource \"hypercompute_training_cluster\" \"test\" {\n  network = \"hc-net\"\n" + base + `  accounting = {
    qos        = ["high", "low"]
    fair_share = true
    retention  = { job_days = 365, step_days = 30, event_days = 90 }
  }
}
`),
				PlanOnly: true, ExpectNonEmptyPlan: true,
			}},
		})
	})
	// The good block's plan reads the region's quotas (the plan-time quota check), a read; the
	// bad ones make no call at all.
	if c := env.Calls(); c.Total != c.Methods["compute.regions.get"].Count {
		t.Fatalf("planning accounting blocks made %d API calls besides the quota read; want 0: %v", c.Total-c.Methods["compute.regions.get"].Count, c.Methods)
	}
}

// The accounting block reaches the controller's config (and nothing like a password does), changes
// in place, and imports back.
func TestAccTrainingCluster_accountingApply(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := func(acct string) string {
		return env.Config(storageConfig("hc-tca") + clusterConfig("hca", "file:///opt/hypercompute-agent", fakeSHA, unprotected+acct))
	}
	accounting := func(want *clusterconfig.Accounting) resource.TestCheckFunc {
		return checkVM(env, "hca-controller", func(inst *computepb.Instance) error {
			raw := metadataOf(inst)[clusterconfig.ClusterKey]
			c, err := clusterconfig.DecodeCluster([]byte(raw))
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(c.Accounting, want) {
				return fmt.Errorf("the controller's config has accounting %+v, want %+v", c.Accounting, want)
			}
			if strings.Contains(raw, `"password":`) || strings.Contains(raw, "StoragePass") {
				return fmt.Errorf("the cluster config carries a password field: %s", raw)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg("  accounting = {\n    qos = [\"high\"]\n    retention = { job_days = 365 }\n  }\n"),
				Check: resource.ComposeTestCheckFunc(
					accounting(&clusterconfig.Accounting{Enabled: true, QOS: []string{"high"}, Retention: clusterconfig.Retention{JobDays: 365}}),
					resource.TestCheckResourceAttr(addr, "accounting.fair_share", "false"),
					resource.TestCheckResourceAttr(addr, "accounting.enabled", "true"),
				),
			},
			{
				Config: cfg("  accounting = {\n    qos = [\"high\", \"low\"]\n    fair_share = true\n    retention = { job_days = 365 }\n" +
					"    database = { host = \"db.internal\", password_file = \"/etc/hypercompute/db-password\" }\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: accounting(&clusterconfig.Accounting{Enabled: true, QOS: []string{"high", "low"}, FairShare: true,
					Retention: clusterconfig.Retention{JobDays: 365},
					Database:  clusterconfig.AccountingDatabase{Host: "db.internal", PasswordFile: "/etc/hypercompute/db-password"}}),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hca", ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"},
			},
			{
				Config: cfg(""),
				Check:  accounting(nil),
			},
		},
	})
}
