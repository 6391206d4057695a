package acctest

import "fmt"

// ClusterConfig is the Terraform of a cluster for the tests of the resources that build on one: a
// network (hypercompute_network.net, named name-net), a Filestore /home
// (hypercompute_filestore.home, name-home) and the training cluster name
// (hypercompute_training_cluster.c) whose agent is at agentURL, with extra lines of the cluster's
// block (deletion_protection, timeouts, login, ...).
func ClusterConfig(name, agentURL, agentSHA, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name   = "%s-net"
  subnet = { cidr = "10.0.0.0/20" }
}
`, name) + homeAndCluster("net", name+"-home", "c", name, agentURL, agentSHA, extra)
}

// homeAndCluster is a Filestore /home on the network at hypercompute_network.<network> and a
// training cluster at hypercompute_training_cluster.<address> that mounts it.
func homeAndCluster(network, home, address, name, agentURL, agentSHA, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_filestore" "home" {
  name                = %q
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.%s.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" %q {
  name    = %q
  network = hypercompute_network.%s.name
  home    = { filestore = hypercompute_filestore.home.id }
  agent   = { url = %q, sha256 = %q }
%s}
`, home, network, address, name, network, agentURL, agentSHA, extra)
}

// RuntimeClusterConfig is ClusterConfig on the local runtime, its controller running the agent at
// agentPath (AgentBinary).
func RuntimeClusterConfig(name, agentPath, agentSHA string) string {
	return ClusterConfig(name, "file://"+agentPath, agentSHA, `  deletion_protection = false
  timeouts            = { create = "5m", update = "3m" }
`)
}

// RuntimePartitionConfig is a partition of static nodes in ClusterConfig's cluster, named name
// at hypercompute_node_partition.<address>.
func RuntimePartitionConfig(address, name, machineType string, staticNodes int) string {
	return fmt.Sprintf(`
resource "hypercompute_node_partition" %q {
  cluster           = hypercompute_training_cluster.c.id
  name              = %q
  machine_type      = %q
  static_node_count = %d
  timeouts          = { create = "5m" }
}
`, address, name, machineType, staticNodes)
}

// RuntimeCPUPartitionConfig is a partition cpu of two static n2-standard-2 nodes, at
// hypercompute_node_partition.cpu.
var RuntimeCPUPartitionConfig = RuntimePartitionConfig("cpu", "cpu", "n2-standard-2", 2)

// RuntimeTinyGPTJob is a recipe job name of the CPU recipe (tiny-gpt 2m, pretrain) on both nodes
// of RuntimePartitionConfig's partition at hypercompute_node_partition.<partition>, with body's
// attributes (overrides, checkpoint, wait_for ...) and short timeouts, at
// hypercompute_recipe_job.<name>.
func RuntimeTinyGPTJob(name, partition, body string) string {
	return fmt.Sprintf(`
resource "hypercompute_recipe_job" %[1]q {
  cluster   = hypercompute_training_cluster.c.id
  partition = hypercompute_node_partition.%[2]s.name
  name      = %[1]q
  nodes     = 2
  recipe    = { model = "tiny-gpt", size = "2m", mode = "pretrain" }
  timeouts  = { create = "4m", delete = "2m" }
%[3]s}
`, name, partition, body)
}
