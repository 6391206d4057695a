package trainingcluster_test

import (
	"fmt"
	"reflect"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A bad monitoring block is refused at plan, naming the attribute, with no API call.
func TestAccTrainingCluster_monitoringInput(t *testing.T) {
	env := acctest.New(t)
	const base = `  name = "hc"
  home = { nfs_source = "10.0.0.2:/home" }
  agent = { url = "file:///opt/hypercompute-agent", sha256 = "abababababababababababababababababababababababababababababababab" }
`
	cases := []struct{ name, body, want string }{
		{"scrape interval not a duration", `  monitoring = { scrape_interval = "often" }`, `monitoring\.scrape_interval.*"often" is not a duration`},
		{"scrape interval too short", `  monitoring = { scrape_interval = "1s" }`, `monitoring\.scrape_interval.*between 5s and 600s`},
		{"fractional scrape interval", `  monitoring = { scrape_interval = "7500ms" }`, `monitoring\.scrape_interval.*whole number of seconds`},
		{"privileged metrics port", `  monitoring = { metrics_port = 80 }`, `monitoring\.metrics_port value must be between 1024 and 65535, got: 80`},
		{"metrics port is a Slurm port", `  monitoring = { metrics_port = 6818 }`, `monitoring\.metrics_port.*6818 is a Slurm daemon's port`},
		{"metrics port is Prometheus'", `  monitoring = { metrics_port = 9090 }`, `monitoring\.metrics_port: 9090 is also prometheus_port`},
		{"goodput target above one", `  monitoring = { goodput_target = 1.5 }`, `monitoring\.goodput_target value must be between`},
		{"bad channel", `  monitoring = { notification_channels = ["email:ops@example.com"] }`,
			`monitoring\.notification_channels\[0\].*not projects/PROJECT/notificationChannels/ID`},
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
	if c := env.Calls(); c.Total != c.Methods["compute.regions.get"].Count {
		t.Fatalf("planning monitoring blocks made %d API calls besides the quota read; want 0: %v", c.Total-c.Methods["compute.regions.get"].Count, c.Methods)
	}
}

// The monitoring block reaches the controller's config, changes in place and imports back.
func TestAccTrainingCluster_monitoringApply(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	cfg := func(mon string) string {
		return env.Config(storageConfig("hc-tcm") + clusterConfig("hcm", "file:///opt/hypercompute-agent", fakeSHA, unprotected+mon))
	}
	monitoring := func(want *clusterconfig.Monitoring) resource.TestCheckFunc {
		return checkVM(env, "hcm-controller", func(inst *computepb.Instance) error {
			c, err := clusterconfig.DecodeCluster([]byte(metadataOf(inst)[clusterconfig.ClusterKey]))
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(c.Monitoring, want) {
				return fmt.Errorf("the controller's config has monitoring %+v, want %+v", c.Monitoring, want)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				Config: cfg("  monitoring = {}\n"),
				Check: resource.ComposeTestCheckFunc(
					monitoring(&clusterconfig.Monitoring{Prometheus: true, CloudMonitoring: true}),
					resource.TestCheckResourceAttr(addr, "monitoring.prometheus", "true"),
					resource.TestCheckResourceAttr(addr, "monitoring.cloud_monitoring", "true"),
				),
			},
			{
				Config:           cfg("  monitoring = {\n    scrape_interval = \"1m\"\n    goodput_target = 0.9\n    cloud_monitoring = false\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeTestCheckFunc(
					monitoring(&clusterconfig.Monitoring{Prometheus: true, ScrapeInterval: 60, GoodputTarget: 0.9}),
					resource.TestCheckResourceAttr(addr, "monitoring.scrape_interval", "1m"),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "hcm", ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection", "monitoring.scrape_interval"},
			},
			{
				Config: cfg(""),
				Check:  monitoring(nil),
			},
		},
	})
}
