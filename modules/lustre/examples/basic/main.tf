# Datasets and checkpoints on Managed Lustre in the GPU nodes' zone, on a cluster network with
# private service access.
provider "hypercompute" {
  project = var.project_id
  region  = "us-central1"
  zone    = "us-central1-a"
}

module "network" {
  source = "../../../network"

  name = "ml-basic"
}

module "lustre" {
  source = "../.."

  name       = "ml-basic-data"
  zone       = "us-central1-a"
  network    = module.network.name
  filesystem = "mlbasic"

  per_unit_storage_throughput = 1000
  capacity_gib                = 36000
}

output "lustre_mount_source" {
  description = "What every node mounts at /lustre."
  value       = module.lustre.mount_source
}
