# A cluster's /home on Filestore. /home outlives every cluster that mounts it, so deletion
# protection defaults to on; the provider refuses changes that would replace the instance.
resource "hypercompute_filestore" "this" {
  name        = var.name
  project     = var.project
  location    = var.location
  tier        = var.tier
  protocol    = var.protocol
  description = var.description
  labels      = merge({ purpose = "home" }, var.labels)

  share = {
    name        = var.share_name
    capacity_gb = var.capacity_gb
  }

  network = {
    name              = var.network
    connect_mode      = var.connect_mode
    reserved_ip_range = var.reserved_ip_range
  }

  deletion_protection        = var.deletion_protection
  deletion_protection_reason = var.deletion_protection ? var.deletion_protection_reason : null
}
