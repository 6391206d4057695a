# Managed Lustre for datasets and checkpoints. Like /home it outlives clusters, so deletion
# protection defaults to on (the provider enforces it; the API has none).
resource "hypercompute_lustre" "this" {
  name        = var.name
  project     = var.project
  zone        = var.zone
  filesystem  = var.filesystem
  network     = var.network
  description = var.description
  labels      = merge({ purpose = "training-data" }, var.labels)

  per_unit_storage_throughput = var.per_unit_storage_throughput
  capacity_gib                = var.capacity_gib

  deletion_protection = var.deletion_protection
}
