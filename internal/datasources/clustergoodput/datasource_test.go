package clustergoodput_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

const addr = "data.hypercompute_cluster_goodput.test"

// cluster is a training cluster whose VMs a fake agent plays.
const cluster = `
resource "hypercompute_network" "net" {
  name   = "hc-gp"
  subnet = { cidr = "10.0.0.0/20" }
}

resource "hypercompute_filestore" "home" {
  name                = "hc-gp-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" "c" {
  name                = "hcg"
  network             = hypercompute_network.net.name
  home                = { filestore = hypercompute_filestore.home.id }
  agent               = { url = "file:///opt/hypercompute-agent", sha256 = "abababababababababababababababababababababababababababababababab" }
  accounting          = { fair_share = true }
  deletion_protection = false
}
`

// The data source reads the report the controller's agent put in its guest attributes: totals,
// partitions and jobs, for the window asked; a window with no report is an error that says why.
func TestAccClusterGoodput(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	report := cc.GoodputReport{
		Window: "7d", GeneratedAt: "2026-12-01T13:00:00Z", Since: "2026-11-24T13:00:00Z",
		Total:      cc.GoodputFigures{Jobs: 2, WaitSeconds: 80, RunSeconds: 600, LostSeconds: 300, Restarts: 1, Scheduling: 600.0 / 680, Runtime: 0.5, Program: 0.25, ProgramSeconds: 80},
		Partitions: map[string]cc.GoodputFigures{"a3": {Jobs: 2, WaitSeconds: 80, RunSeconds: 600, LostSeconds: 300, Restarts: 1, Scheduling: 600.0 / 680, Runtime: 0.5, Program: 0.25, ProgramSeconds: 80}},
		Jobs: []cc.JobGoodput{
			{JobID: "7", Name: "train", Partition: "a3", State: "COMPLETED", GoodputFigures: cc.GoodputFigures{Jobs: 1, WaitSeconds: 20, RunSeconds: 100, Scheduling: 100.0 / 120, Runtime: 1, Program: 0.25, ProgramSeconds: 80}},
			{JobID: "8", Name: "sweep", Partition: "a3", State: "COMPLETED", GoodputFigures: cc.GoodputFigures{Jobs: 1, WaitSeconds: 60, RunSeconds: 500, LostSeconds: 300, Restarts: 1, Scheduling: 500.0 / 560, Runtime: 0.4}},
		},
		JobsOmitted: 3,
		Repairs:     map[string]cc.RepairFigures{"a3": {Repairs: 1, NodeSeconds: 420}},
	}
	put := func() {
		v, err := cc.EncodeGoodputReport(report)
		if err != nil {
			t.Fatal(err)
		}
		svc := env.Server.Component("instances").(*instances.Service)
		if err := svc.PutGuestAttribute(instances.InstanceKey(acctest.Project, acctest.Zone, "hcg-controller"), cc.GuestAttributeNamespace, cc.GuestAttrGoodputPrefix+"7d", v); err != nil {
			t.Fatal(err)
		}
	}
	data := func(window string) string {
		return "\ndata \"hypercompute_cluster_goodput\" \"test\" {\n  cluster = hypercompute_training_cluster.c.id\n" + window + "}\n"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: env.Config(cluster)},
			{
				PreConfig: put,
				Config:    env.Config(cluster + data("")),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "window", "7d"),
					resource.TestCheckResourceAttr(addr, "generated_at", "2026-12-01T13:00:00Z"),
					resource.TestCheckResourceAttr(addr, "total.jobs", "2"),
					resource.TestCheckResourceAttr(addr, "total.run_seconds", "600"),
					resource.TestCheckResourceAttr(addr, "total.lost_seconds", "300"),
					resource.TestCheckResourceAttr(addr, "total.runtime_goodput", "0.5"),
					resource.TestCheckResourceAttr(addr, "partitions.a3.restarts", "1"),
					resource.TestCheckResourceAttr(addr, "partitions.a3.wait_seconds", "80"),
					resource.TestCheckResourceAttr(addr, "jobs.#", "2"),
					resource.TestCheckResourceAttr(addr, "jobs.1.job_id", "8"),
					resource.TestCheckResourceAttr(addr, "jobs.1.state", "COMPLETED"),
					resource.TestCheckResourceAttr(addr, "jobs.1.runtime_goodput", "0.4"),
					resource.TestCheckResourceAttr(addr, "jobs_omitted", "3"),
					// Program goodput (MFU): job 7 is a recipe that reported it; job 8 did not.
					resource.TestCheckResourceAttr(addr, "total.program_goodput", "0.25"),
					resource.TestCheckResourceAttr(addr, "partitions.a3.program_seconds", "80"),
					resource.TestCheckResourceAttr(addr, "jobs.0.program_goodput", "0.25"),
					resource.TestCheckNoResourceAttr(addr, "jobs.1.program_goodput"),
					resource.TestCheckResourceAttr(addr, "jobs.1.program_seconds", "0"),
					resource.TestCheckResourceAttr(addr, "repairs.a3.repairs", "1"),
					resource.TestCheckResourceAttr(addr, "repairs.a3.node_seconds", "420"),
				),
			},
			{
				Config:      env.Config(cluster + data("  window = \"30d\"\n")),
				ExpectError: acctest.ErrorMatching(`cluster: the controller hcg-controller reports no goodput for window 30d: set the cluster's accounting block`),
			},
		},
	})
}

// A malformed cluster id or a window the controller does not report is refused at plan with no API call.
func TestAccClusterGoodput_invalid(t *testing.T) {
	env := acctest.New(t)
	for name, tc := range map[string]struct{ body, want string }{
		"window":     {`cluster = "projects/p/zones/us-central1-a/clusters/hc"` + "\n  window = \"2d\"", `window: "2d" is not a window the controller reports; use one of 1d, 7d, 30d`},
		"cluster id": {`cluster = "hc"`, `cluster: "hc" is not a training cluster id`},
		"zone":       {`cluster = "projects/p/zones/mars-1/clusters/hc"`, `cluster: .*mars-1`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      env.Config("data \"hypercompute_cluster_goodput\" \"test\" {\n  " + tc.body + "\n}\n"),
					ExpectError: acctest.ErrorMatching(strings.ReplaceAll(tc.want, "/", "/")),
				}},
			})
		})
	}
	if n := env.Calls().Total; n != 0 {
		t.Fatalf("invalid configurations made %d API calls; want 0: %v", n, env.Calls().Methods)
	}
}
