# Datasets and checkpoints for a training cluster: Managed Lustre in the GPU nodes' zone, on the
# cluster network (which must have private service access). Mount it on every node with
#   mount -t lustre <mount_source> /lustre
resource "hypercompute_network" "cluster" {
  name = "ml-dev"

  subnet = {
    cidr = "10.0.0.0/20"
  }
}

resource "hypercompute_lustre" "data" {
  name       = "ml-dev-data"
  zone       = "us-central1-b"
  filesystem = "lustrefs"
  network    = hypercompute_network.cluster.name

  # 1000 MBps per TiB: 9000-1530000 GiB in steps of 9000, then steps of 72000.
  per_unit_storage_throughput = 1000
  capacity_gib                = 36000 # grows in place; never shrinks

  description = "datasets and checkpoints"
  labels = {
    purpose = "training-data"
  }

  # Enforced by the provider (the API has none): set to false and apply before destroying.
  deletion_protection = true
}

output "lustre_mount_source" {
  value = hypercompute_lustre.data.mount_source
}
