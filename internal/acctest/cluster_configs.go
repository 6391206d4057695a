package acctest

import "fmt"

// RuntimeClusterConfig is the Terraform of a real cluster on the local runtime, for the runtime
// tests of the resources that build on one: a network (name-net), a Filestore /home
// (name-home) and the training cluster name, its controller running the agent at agentPath
// (AgentBinary). Their addresses are hypercompute_network.net, hypercompute_filestore.home and
// hypercompute_training_cluster.c.
func RuntimeClusterConfig(name, agentPath, agentSHA string) string {
	return fmt.Sprintf(`
resource "hypercompute_network" "net" {
  name   = "%[1]s-net"
  subnet = { cidr = "10.0.0.0/20" }
}

resource "hypercompute_filestore" "home" {
  name                = "%[1]s-home"
  tier                = "BASIC_HDD"
  share               = { capacity_gb = 1024 }
  network             = { name = hypercompute_network.net.name }
  deletion_protection = false
}

resource "hypercompute_training_cluster" "c" {
  name                = %[1]q
  network             = hypercompute_network.net.name
  home                = { filestore = hypercompute_filestore.home.id }
  agent               = { url = "file://%[2]s", sha256 = %[3]q }
  deletion_protection = false
  timeouts            = { create = "5m", update = "3m" }
}
`, name, agentPath, agentSHA)
}

// RuntimeCPUPartitionConfig is a partition cpu of two static n2-standard-2 nodes in
// RuntimeClusterConfig's cluster, at hypercompute_node_partition.cpu.
const RuntimeCPUPartitionConfig = `
resource "hypercompute_node_partition" "cpu" {
  cluster           = hypercompute_training_cluster.c.id
  name              = "cpu"
  machine_type      = "n2-standard-2"
  static_node_count = 2
  timeouts          = { create = "5m" }
}
`
