# ml-dev: the development environment's network. Storage, the cluster and its partitions are added
# here as their resources land. With HYPERCOMPUTE_EMULATOR_HOST set (as `make demo` does) the same
# blueprint runs against the local cloud.
provider "hypercompute" {
  project = var.project_id
  region  = var.region
  zone    = var.zone

  default_labels = {
    environment = "ml-dev"
    managed-by  = "terraform"
  }
}

resource "hypercompute_network" "cluster" {
  name = var.name
  mtu  = 8896

  subnet = {
    cidr = var.subnet_cidr
  }

  # Filestore /home and Managed Lustre attach through private service access.
  private_service_access = {
    prefix_length = 20
  }
}
