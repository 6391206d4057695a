# A cluster network with the module's secure defaults and the TCPXO GPU network set A3 Mega
# partitions attach their eight GPU NICs to.
provider "hypercompute" {
  project = var.project_id
  region  = "us-central1"
  zone    = "us-central1-a"
}

module "network" {
  source = "../.."

  name        = "ml-basic"
  subnet_cidr = "10.0.0.0/20"

  gpu_networks = {
    stack = "tcpxo"
  }
}

output "network" {
  description = "The network's name, as filestore-home, lustre and training-cluster take it."
  value       = module.network.name
}
