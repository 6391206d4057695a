# Checkpoints of a training cluster: a hierarchical namespace (atomic folder renames, fast listing) and no soft
# delete, in the cluster's region so nodes write without cross-region traffic. Mount it on nodes with
#   mount -t gcsfuse -o rw,implicit_dirs ml-prod-checkpoints /gcs/checkpoints
resource "hypercompute_bucket" "checkpoints" {
  name     = "ml-prod-checkpoints"
  location = "us-central1"
  purpose  = "checkpoints"

  labels = {
    team = "ml"
  }
}

# Training data: Autoclass moves shards nobody reads to colder classes (down to ARCHIVE here) and back
# when they are read again; deleted objects stay restorable for 14 days.
resource "hypercompute_bucket" "datasets" {
  name                             = "ml-prod-datasets"
  location                         = "us-central1"
  purpose                          = "datasets"
  autoclass_terminal_storage_class = "ARCHIVE"
  soft_delete_retention_seconds    = 1209600
}

# Scratch space that may be thrown away with everything in it.
resource "hypercompute_bucket" "scratch" {
  name                = "ml-prod-scratch"
  force_destroy       = true
  deletion_protection = false
}

output "checkpoint_url" {
  value = hypercompute_bucket.checkpoints.url
}
