package trainingcluster_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	dashboards "google.golang.org/api/monitoring/v1"
	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	emon "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/monitoring"
)

// The rules of the controller's Prometheus, one alert policy each, in alert_policies' order.
var monitoringRules = []string{"HealthCheckDrainedNode", "RepairFailing", "RepairEscalated", "JobNoProgress",
	"CheckpointStale", "GoodputBelowTarget", "GPUECCErrors", "GPUXIDErrors"}

func policies(env *acctest.Env) map[string]*monitoring.AlertPolicy {
	out := map[string]*monitoring.AlertPolicy{}
	for _, rec := range env.Server.Store.List(emon.KindPolicies, "") {
		var p monitoring.AlertPolicy
		if rec.Decode(&p) == nil {
			out[p.Name] = &p
		}
	}
	return out
}

// checkCloudMonitoring: the state's dashboard and policies exist in the emulator, one per rule, with
// the goodput target and the no-progress window of the block.
func checkCloudMonitoring(env *acctest.Env, cluster string, target float64, stallSeconds int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[addr].Primary.Attributes
		dash := "projects/" + acctest.Project + "/dashboards/hypercompute-" + cluster + "-" + acctest.Zone
		if attrs["monitoring.dashboard"] != dash {
			return fmt.Errorf("monitoring.dashboard = %q, want %q", attrs["monitoring.dashboard"], dash)
		}
		var d dashboards.Dashboard
		if ok, err := env.Server.Store.Get(emon.KindDashboards, dash, &d); !ok || err != nil {
			return fmt.Errorf("dashboard %s is not in the emulator (%v)", dash, err)
		}
		if d.MosaicLayout == nil || len(d.MosaicLayout.Tiles) != 6 {
			return fmt.Errorf("dashboard %s has no mosaic of 6 charts: %+v", dash, d.MosaicLayout)
		}
		all := policies(env)
		if len(all) != len(monitoringRules) || attrs["monitoring.alert_policies.#"] != fmt.Sprint(len(monitoringRules)) {
			return fmt.Errorf("%d policies in the emulator, %s in the state; want %d", len(all), attrs["monitoring.alert_policies.#"], len(monitoringRules))
		}
		for i, rule := range monitoringRules {
			p := all[attrs[fmt.Sprintf("monitoring.alert_policies.%d", i)]]
			if p == nil || p.DisplayName != cluster+": "+rule {
				return fmt.Errorf("alert_policies[%d] is %+v, want the policy %s: %s", i, p, cluster, rule)
			}
			c := p.Conditions[0]
			switch rule {
			case "GoodputBelowTarget":
				if t := c.ConditionThreshold; t == nil || t.ThresholdValue != target || t.Comparison != "COMPARISON_LT" ||
					!strings.Contains(t.Filter, `metric.type = "workload.googleapis.com/hypercompute/goodput_ratio"`) ||
					!strings.Contains(t.Filter, `metric.labels.cluster = "`+cluster+`"`) {
					return fmt.Errorf("%s condition %+v, want goodput_ratio of %s below %g", rule, t, cluster, target)
				}
			case "JobNoProgress":
				if q := c.ConditionPrometheusQueryLanguage; q == nil || !strings.Contains(q.Query, fmt.Sprintf("changes(workload_googleapis_com:hypercompute_job_step{cluster=%q}[%ds]) == 0", cluster, stallSeconds)) {
					return fmt.Errorf("%s condition %+v, want a PromQL no-step window of %ds", rule, q, stallSeconds)
				}
			}
		}
		return nil
	}
}

func noCloudMonitoring(env *acctest.Env) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(env.CheckCount(emon.KindDashboards, 0), env.CheckCount(emon.KindPolicies, 0))
}

// A cluster with monitoring = {} keeps a dashboard and one alert policy per rule in Cloud Monitoring —
// made once even when creates' answers are lost —, changes the goodput policy in place when
// goodput_target changes (same names), puts back a policy deleted outside Terraform, deletes them when
// cloud_monitoring is turned off, refuses a dashboard of its id that another cluster holds, and leaves
// nothing on destroy.
func TestAccTrainingCluster_cloudMonitoring(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	seed := uint64(1)
	env.ApplyFaults(t, core.FaultSpec{Seed: &seed, ErrorRates: []core.ErrorRate{
		{Method: "monitoring.projects.alertPolicies.create", Rate: 0.4, Code: 503, AfterHandler: true},
		{Method: "monitoring.projects.dashboards.create", Rate: 0.5, Code: 503, AfterHandler: true},
	}})
	cfg := func(mon string) string {
		return env.Config(storageConfig("hc-tcw") + clusterConfig("hcw", "file:///opt/hypercompute-agent", fakeSHA, unprotected+mon))
	}
	var names []string
	keepNames := func(s *terraform.State) error {
		names = nil
		attrs := s.RootModule().Resources[addr].Primary.Attributes
		for i := range monitoringRules {
			names = append(names, attrs[fmt.Sprintf("monitoring.alert_policies.%d", i)])
		}
		return nil
	}
	sameNames := func(s *terraform.State) error {
		before := slices.Clone(names)
		_ = keepNames(s)
		if !slices.Equal(before, names) {
			return fmt.Errorf("alert policies %v, before %v: an update in place keeps them", names, before)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(checkVMs(env), noCloudMonitoring(env)),
		Steps: []resource.TestStep{
			{
				Config: cfg("  monitoring = { goodput_target = 0.85 }\n"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCloudMonitoring(env, "hcw", 0.85, 300),
					func(*terraform.State) error {
						if n := env.CallCount("monitoring.projects.alertPolicies.create"); n <= int64(len(monitoringRules)) {
							return fmt.Errorf("alertPolicies.create was called %d times; the lost-answer case was not exercised", n)
						}
						if n := env.CallCount("monitoring.projects.dashboards.create"); n < 2 {
							return fmt.Errorf("dashboards.create was called %d times; the lost-answer case was not exercised", n)
						}
						return nil
					},
					keepNames,
				),
			},
			{
				Config: cfg("  monitoring = {\n    goodput_target = 0.9\n    no_progress_intervals = 4\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("monitoring").AtMapKey("dashboard"), knownvalue.StringExact("projects/"+acctest.Project+"/dashboards/hypercompute-hcw-"+acctest.Zone)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(checkCloudMonitoring(env, "hcw", 0.9, 120), sameNames),
			},
			{
				// A policy deleted outside Terraform shows as a change and is put back.
				PreConfig: func() {
					for name := range policies(env) {
						env.Server.Store.Delete(emon.KindPolicies, name)
						break
					}
				},
				Config: cfg("  monitoring = {\n    goodput_target = 0.9\n    no_progress_intervals = 4\n  }\n"),
				Check:  checkCloudMonitoring(env, "hcw", 0.9, 120),
			},
			{
				Config:           cfg("  monitoring = {\n    goodput_target = 0.9\n    no_progress_intervals = 4\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// The dashboard's id taken by another cluster's (another controller's id): refused, and
				// left as it is.
				PreConfig: func() {
					name := "projects/" + acctest.Project + "/dashboards/hypercompute-hcw-" + acctest.Zone
					var d dashboards.Dashboard
					if _, err := env.Server.Store.Get(emon.KindDashboards, name, &d); err != nil {
						t.Fatal(err)
					}
					d.Labels["hypercompute-controller"] = "12345"
					d.DisplayName = "another cluster's"
					if err := env.Server.Store.Put(emon.KindDashboards, name, &d); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg("  monitoring = {\n    goodput_target = 0.9\n    no_progress_intervals = 4\n  }\n"),
				ExpectError: acctest.ErrorMatching(`dashboard projects/.*/dashboards/hypercompute-hcw-.* exists and belongs to another\s+cluster`),
			},
			{
				PreConfig: func() {
					var d dashboards.Dashboard
					name := "projects/" + acctest.Project + "/dashboards/hypercompute-hcw-" + acctest.Zone
					if _, err := env.Server.Store.Get(emon.KindDashboards, name, &d); err != nil || d.DisplayName != "another cluster's" || d.Labels["hypercompute-controller"] != "12345" {
						t.Fatalf("the other cluster's dashboard was changed: %+v %v", d, err)
					}
					env.Server.Store.Delete(emon.KindDashboards, name)
				},
				Config: cfg("  monitoring = {\n    goodput_target = 0.9\n    no_progress_intervals = 4\n  }\n"),
				Check:  checkCloudMonitoring(env, "hcw", 0.9, 120),
			},
			{
				Config: cfg("  monitoring = { cloud_monitoring = false }\n"),
				Check: resource.ComposeAggregateTestCheckFunc(noCloudMonitoring(env),
					resource.TestCheckNoResourceAttr(addr, "monitoring.dashboard"),
					resource.TestCheckResourceAttr(addr, "monitoring.alert_policies.#", "0")),
			},
		},
	})
}
