package nodepartition_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Impossible combinations are refused at plan, naming the attribute, before any API call: no
// cluster even exists in this test's cloud.
func TestAccNodePartition_invalidInput(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cfg := func(name, machine string, static, dynamic int, extra string) string {
		return env.Config(partitionConfig(cluster, name, machine, static, dynamic, extra))
	}
	cases := []struct {
		name, body, want string
	}{
		{"flex-start with a reservation", cfg("gpu", "a3-megagpu-8g", 0, 2, `  provisioning = {
    model       = "flex_start"
    reservation = "my-res"
  }`), `provisioning\.reservation: flex-start VMs cannot consume a reservation`},
		{"spot with a reservation", cfg("gpu", "a3-megagpu-8g", 2, 0, `  provisioning = {
    model       = "spot"
    reservation = "my-res"
  }`), `provisioning\.reservation: Spot VMs cannot consume a reservation`},
		{"reservation model without a reservation", cfg("gpu", "a3-megagpu-8g", 2, 0, `  provisioning = { model = "reservation" }`),
			`provisioning\.reservation: model = "reservation" needs the reservation to consume`},
		{"compact placement over 1,500 VMs", cfg("gpu", "a3-megagpu-8g", 500, 1001, `  placement = { compact = true }`),
			`placement\.compact: a compact placement policy holds at most 1500 VMs, and this partition may have 1501`},
		{"compact placement on a reservation-placed family", cfg("gpu", "a3-ultragpu-8g", 2, 0, `  provisioning = {
    model       = "reservation"
    reservation = "ultra"
  }
  placement = { compact = true }`), `placement\.compact: a3-ultragpu-8g VMs get their placement from the reservation's dense blocks`},
		{"compact placement on G2", cfg("l4", "g2-standard-24", 2, 0, `  placement = { compact = true }`),
			`placement\.compact: g2-standard-24 does not support compact placement policies`},
		{"x86 image on A4X", cfg("gb200", "a4x-highgpu-4g", 2, 0, `  image = "projects/ubuntu-os-accelerator-images/global/images/family/ubuntu-accelerator-2404-amd64-with-nvidia-570"
  provisioning = {
    model       = "reservation"
    reservation = "gb200"
  }`), `image: .* is an x86_64 image, but a4x-highgpu-4g VMs are arm64`},
		{"A4X without a reservation", cfg("gb200", "a4x-highgpu-4g", 2, 0, ""),
			`provisioning\.model: a4x-highgpu-4g VMs can only be created from a reservation`},
		{"zero nodes in total", cfg("cpu", "n2-standard-4", 0, 0, ""), `static_node_count: the partition has no nodes`},
		{"unknown machine type", cfg("cpu", "n9-standard-4", 1, 0, ""), `machine_type: machine type "n9-standard-4" is not known`},
		{"machine type not offered in the zone", cfg("gpu", "a4-highgpu-8g", 1, 0, `  zone = "us-central1-f"`),
			`machine_type: machine type a4-highgpu-8g is not offered in zone us-central1-f; zones that offer it: (.|\n)*us-central1-b`},
		{"bad partition name", cfg("gpu nodes", "n2-standard-4", 1, 0, ""), `name: partition name "gpu nodes" is invalid`},
		{"reserved partition name", cfg("default", "n2-standard-4", 1, 0, ""), `name: partition name "default" is reserved`},
		// Compute deletes a flex-start VM at its max_run_duration: static nodes would come and go weekly.
		{"flex-start with static nodes", cfg("gpu", "a3-megagpu-8g", 2, 4, `  provisioning = { model = "flex_start" }`),
			`static_node_count: flex-start \(Dynamic Workload Scheduler\) capacity is obtained per job[\s\S]*set static_node_count = 0 and max_dynamic_node_count`},
		{"max_run_duration out of range", cfg("gpu", "a3-megagpu-8g", 0, 4, `  provisioning = {
    model            = "flex_start"
    max_run_duration = "8d"
  }`), `provisioning\.max_run_duration: "8d" is out of range: flex-start VMs run between 30 seconds and 7 days`},
		{"max_run_duration without flex-start", cfg("gpu", "a3-megagpu-8g", 0, 4, `  provisioning = { max_run_duration = "1h" }`),
			`provisioning\.max_run_duration: max_run_duration applies to flex-start VMs only`},
		{"termination action without spot", cfg("gpu", "a3-megagpu-8g", 0, 4, `  provisioning = { termination_action = "STOP" }`),
			`provisioning\.termination_action: termination_action applies to Spot VMs only`},
		{"local SSDs on a machine that bundles them", cfg("gpu", "a3-megagpu-8g", 1, 0, `  local_ssd_count = 2`),
			`local_ssd_count: a3-megagpu-8g comes with 16 local SSDs`},
		{"bad reservation name", cfg("gpu", "a3-megagpu-8g", 1, 0, `  provisioning = {
    model       = "reservation"
    reservation = "projects/other/zones/x/reservations/r"
  }`), `provisioning\.reservation: "projects/other/zones/x/reservations/r" is not a reservation`},
		{"reserved label", cfg("cpu", "n2-standard-4", 1, 0, `  labels = { hypercompute-partition = "x" }`),
			`labels: the label "hypercompute-partition" is set by the provider`},
		{"the provider's creation marker", cfg("cpu", "n2-standard-4", 1, 0, `  labels = { hypercompute-create = "pending" }`),
			`labels: label key "hypercompute-create" is reserved`},
		{"unknown partition setting", cfg("cpu", "n2-standard-4", 1, 0, `  slurm = { extra = { Nodes = "x" } }`), `slurm\.extra: `},
		{"bad max_time", cfg("cpu", "n2-standard-4", 1, 0, `  slurm = { max_time = "forever" }`), `slurm\.max_time: "forever" is not a Slurm time`},
		{"resume_retry_after above a day", cfg("cpu", "n2-standard-4", 0, 2, `  slurm = { resume_retry_after = 90000 }`), `slurm\.resume_retry_after value must be between 0 and 86400`},
		{"zone in another region", cfg("cpu", "n2-standard-4", 1, 0, `  zone = "us-east4-a"`),
			`zone: us-east4-a is in region us-east4, but the cluster runs in us-central1-a \(region us-central1\)`},
		{"not a cluster id", cfg("cpu", "n2-standard-4", 1, 0, ""), ``},
		{"node names too long", env.Config(partitionConfig("projects/hc-acc-test/zones/us-central1-a/clusters/abcdefghijabcdefghijabcdefghij12",
			"partition-name-that-is-long", "n2-standard-4", 1000, 0, "")), `name: node name "abcdefghij.*-999" would be 64 characters long`},
	}
	cases[len(cases)-2].body = env.Config(partitionConfig("hcx", "cpu", "n2-standard-4", 1, 0, ""))
	cases[len(cases)-2].want = `cluster: "hcx" is not a training cluster id`
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, tc.body, tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}
