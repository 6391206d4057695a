# /home for a training cluster: a ZONAL NFSv4.1 Filestore share on the cluster network's private
# service access range, protected against deletion.
provider "hypercompute" {
  project = var.project_id
  region  = "us-central1"
  zone    = "us-central1-a"
}

module "network" {
  source = "../../../network"

  name = "ml-basic"
}

module "home" {
  source = "../.."

  name              = "ml-basic-home"
  location          = "us-central1-a"
  network           = module.network.name
  reserved_ip_range = module.network.private_service_access_range
  capacity_gb       = 2048
}

output "home_mount" {
  description = "What every node mounts at /home."
  value       = "${module.home.mount_source} (${module.home.mount_options})"
}
