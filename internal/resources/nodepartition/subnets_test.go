package nodepartition_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// requireNoMutatingCalls fails the test when the emulator served a call that changes anything
// since the last ResetCalls: a refused plan may read, never write.
func requireNoMutatingCalls(t *testing.T, env *acctest.Env, what string) {
	t.Helper()
	for m, c := range env.Calls().Methods {
		if c.Mutating && c.Count > 0 {
			t.Fatalf("%s made %d %s calls; a refused plan makes no mutating call", what, c.Count, m)
		}
	}
}

// An A3 Mega node takes an address in each of the eight TCPXO subnets, and a /24 holds 252: a
// partition of more nodes is refused at plan, naming the count that does not fit and the subnet
// with its size, before any VM is made (it used to pass the plan and fail at apply with 748 VMs
// refused).
func TestAccNodePartition_subnetTooSmall(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcn", clusterOpts{gpuStack: "tcpxo", gpuSubnetBits: 24})
	env.ResetCalls()
	acctest.PlanFails(t, factories, "static nodes", env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 253, 0, "")),
		`(?s)static_node_count: the partition's 253 nodes \(static_node_count 253 \+ max_dynamic_node_count 0\) each take an address in every subnet below.*`+
			`subnetwork hcn-net-gpu-0-subnet \(192\.168\.0\.0/24: 252 usable addresses, 0 of them for the cluster's other VMs\) has room for 252 of them; set gpu_networks\.subnet_prefix_length = 23`)
	// Dynamic nodes need their addresses too, when Slurm makes them.
	acctest.PlanFails(t, factories, "dynamic nodes", env.Config(partitionConfig(tc.id, "a3mega", "a3-megagpu-8g", 200, 100, "")),
		`(?s)max_dynamic_node_count: the partition's 300 nodes .*hcn-net-gpu-7-subnet \(192\.168\.112\.0/24: 252 usable`)
	requireNoMutatingCalls(t, env, "the refused plans")
	if n := env.CallCount("compute.subnetworks.get") + env.CallCount("compute.subnetworks.list"); n != 4 {
		t.Errorf("the two refused plans (each planned twice by the test framework) read subnets %d times, want one get and one list per plan", n)
	}
}

// A blueprint planned from nothing: the partition reads the sizes the network and cluster planned
// in the same operation (none of them exists yet), and refuses 253 A3 Mega nodes on /24 GPU
// subnets; with gpu_networks.subnet_prefix_length = 23 the same plan passes.
func TestAccNodePartition_subnetTooSmallPlannedTogether(t *testing.T) {
	env := acctest.New(t)
	cfg := func(prefix int) string {
		return env.Config(fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name         = "hcp-net"
  subnet       = { cidr = "10.0.0.0/20" }
  gpu_networks = { stack = "tcpxo", subnet_prefix_length = %d }
}

resource "hypercompute_filestore" "home" {
  name                = "hcp-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" "c" {
  name                = "hcp"
  network             = hypercompute_network.net.name
  home                = { filestore = hypercompute_filestore.home.id }
  agent               = { url = "https://example.com/agent", sha256 = %q }
  deletion_protection = false
}
`, prefix, agentX86.SHA256) + partitionConfig("${hypercompute_training_cluster.c.id}", "a3mega", "a3-megagpu-8g", 253, 0, ""))
	}
	acctest.PlanFails(t, factories, "GPU subnets /24", cfg(24),
		`(?s)static_node_count: the partition's 253 nodes .*subnetwork hcp-net-gpu-0-subnet \(192\.168\.0\.0/24: 252 usable addresses`)
	// /23 holds 508: the same plan passes.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps:                    []resource.TestStep{{Config: cfg(23), PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
	requireNoMutatingCalls(t, env, "the plans")
}
