# One cluster VPC with secure defaults: IAP-only SSH ingress, Cloud NAT, private service access for
# Filestore and Managed Lustre, and optionally one GPU NIC stack's network set.
resource "hypercompute_network" "this" {
  name        = var.name
  project     = var.project
  region      = var.region
  description = var.description
  mtu         = var.mtu

  enable_nat     = var.enable_nat
  enable_iap_ssh = var.enable_iap_ssh

  subnet = {
    cidr = var.subnet_cidr
  }

  private_service_access = var.private_service_access == null ? { enabled = false, prefix_length = null, address = null } : {
    enabled       = true
    prefix_length = var.private_service_access.prefix_length
    address       = var.private_service_access.address
  }

  # TCPX and TCPXO fix their subnet count (one per VPC), and only RDMA has a zonal network profile.
  gpu_networks = var.gpu_networks == null ? null : {
    stack        = var.gpu_networks.stack
    cidr         = var.gpu_networks.cidr
    subnet_count = var.gpu_networks.stack == "rdma" ? var.gpu_networks.subnet_count : null
    zone         = var.gpu_networks.stack == "rdma" ? var.gpu_networks.zone : null

    subnet_prefix_length = var.gpu_networks.subnet_prefix_length
  }
}
