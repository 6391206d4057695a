package clusterhealth_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

const ds = "data.hypercompute_cluster_health.test"

func config(cluster string) string {
	return fmt.Sprintf(`
data "hypercompute_cluster_health" "test" {
  cluster = %q
}
`, cluster)
}

// controller makes a controller VM with guest attributes enabled and reports on it what the
// agent reports.
func controller(t *testing.T, env *acctest.Env, name string, attrs map[string]string) string {
	t.Helper()
	id := env.APICluster(t, acctest.APIClusterSpec(name), nil)
	svc, key := env.ControllerVM(t, name)
	for k, v := range attrs {
		if err := svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, k, v); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func js(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The data source shows what the controller's agent reported: nodes with their state, reason and
// last failure, and the repairs in progress and done.
func TestAccClusterHealth_read(t *testing.T) {
	env := acctest.New(t)
	t0 := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	cluster := controller(t, env, "hc", map[string]string{
		cc.GuestAttrHealth: cc.EncodeClusterHealth(cc.ClusterHealth{
			InProgress: []cc.HealthRepair{{Node: "hc-a3-1", Action: cc.ActionReplace, Check: cc.CheckECC, Reason: "hc:ecc: GPU 2 has 3 uncorrected volatile ECC errors (limit 0)", Started: t0.Add(time.Minute)}},
			Done:       []cc.HealthRepair{{Node: "hc-a3-0", Action: cc.ActionReboot, Check: cc.CheckDisk, Started: t0, Finished: t0.Add(30 * time.Second), Result: "ok"}},
			Policies:   map[string]string{"default": "abc123"},
		}, 4000),
		cc.HealthNodeAttr("hc-a3-0"): js(t, cc.NodeHealth{Node: "hc-a3-0", Partition: "a3", State: "reserved", Spare: true, InService: t0.Add(30 * time.Second), Repairs: 1, LastFailure: "hc:disk: / has 0.10 GB free (minimum 10 GB)", LastFailedAt: t0}),
		cc.HealthNodeAttr("hc-a3-1"): js(t, cc.NodeHealth{Node: "hc-a3-1", Partition: "a3", State: "drained", Reason: "hc:ecc: GPU 2 has 3 uncorrected volatile ECC errors (limit 0)", Repairs: 1}),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: env.Config(config(cluster)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(ds, "nodes.#", "2"),
				resource.TestCheckResourceAttr(ds, "nodes.0.name", "hc-a3-0"),
				resource.TestCheckResourceAttr(ds, "nodes.0.in_service_since", "2026-12-01T21:00:30Z"),
				resource.TestCheckResourceAttr(ds, "nodes.0.last_failed_at", "2026-12-01T21:00:00Z"),
				resource.TestCheckResourceAttr(ds, "nodes.0.spare", "true"),
				resource.TestCheckResourceAttr(ds, "nodes.1.spare", "false"),
				resource.TestCheckResourceAttr(ds, "nodes.1.state", "drained"),
				resource.TestCheckResourceAttr(ds, "nodes.1.reason", "hc:ecc: GPU 2 has 3 uncorrected volatile ECC errors (limit 0)"),
				resource.TestCheckResourceAttr(ds, "nodes.1.in_service_since", ""),
				resource.TestCheckResourceAttr(ds, "repairs_in_progress.#", "1"),
				resource.TestCheckResourceAttr(ds, "repairs_in_progress.0.action", "replace"),
				resource.TestCheckResourceAttr(ds, "repairs_in_progress.0.finished", ""),
				resource.TestCheckResourceAttr(ds, "repairs_done.0.result", "ok"),
				resource.TestCheckResourceAttr(ds, "policies.default", "abc123"),
			),
		}},
	})
}

// A cluster whose controller reported nothing yet has no records; one without a controller is an error.
func TestAccClusterHealth_emptyAndMissing(t *testing.T) {
	env := acctest.New(t)
	cluster := controller(t, env, "he", nil)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: env.Config(config(cluster)), Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(ds, "nodes.#", "0"), resource.TestCheckResourceAttr(ds, "repairs_done.#", "0"))},
			{Config: env.Config(config("projects/" + acctest.Project + "/zones/" + acctest.Zone + "/clusters/gone")),
				ExpectError: acctest.ErrorMatching(`cluster: the controller gone-controller of .* does not exist`)},
		},
	})
}

// A malformed cluster id is refused at plan without an API call.
func TestAccClusterHealth_invalidInput(t *testing.T) {
	env := acctest.New(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    []resource.TestStep{{Config: env.Config(config("hc")), PlanOnly: true, ExpectError: acctest.ErrorMatching(`cluster: "hc" is not a training cluster id`)}},
	})
	if n := env.Calls().Total; n != 0 {
		t.Fatalf("an invalid configuration made %d API calls: %v", n, env.Calls().Methods)
	}
}
