# A cluster network with the secure defaults: no ingress from outside the VPC except SSH through
# IAP, Cloud NAT for nodes without public IPs, and private service access for Filestore and Lustre.
resource "hypercompute_network" "cluster" {
  name = "ml-dev"
  mtu  = 8896

  subnet = {
    cidr = "10.0.0.0/20"
  }

  private_service_access = {
    prefix_length = 20
  }
}

# The GPU network set for A3 Ultra / A4 partitions: one RDMA VPC on the zone's RoCE profile
# with one subnet per GPU NIC.
resource "hypercompute_network" "a4" {
  name = "ml-a4"

  subnet = {
    cidr = "10.10.0.0/20"
  }

  gpu_networks = {
    stack        = "rdma"
    zone         = "us-central1-b"
    subnet_count = 8
  }
}
