# The smallest complete cluster: network, Filestore /home, a controller, one login VM, a CPU debug
# partition and an L4 Spot partition that only exists while jobs need it.
provider "hypercompute" {
  project = var.project_id
  region  = "us-central1"
  zone    = "us-central1-a"
}

module "cluster" {
  source = "../.."

  name = "ml-basic"
  zone = "us-central1-a"

  partitions = {
    debug = {
      machine_type      = "n2-standard-4"
      static_node_count = 1
      default           = true
      max_time          = "04:00:00"
    }
    l4 = {
      machine_type           = "g2-standard-48"
      max_dynamic_node_count = 2
      provisioning_model     = "spot"
      exclusive              = false
    }
  }

  agent               = var.agent
  deletion_protection = false
}

output "ssh_command" {
  description = "How to reach the login VM."
  value       = module.cluster.ssh_command
}
