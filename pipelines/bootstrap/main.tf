# The Cloud Storage bucket that holds an environment's Terraform state (the gcs backend of
# examples/blueprints/<env>). Apply it once per environment, before the environment's first
# pipeline run, with the bucket name its backend/<env>.hcl names.
provider "hypercompute" {
  project = var.project_id
  region  = var.location
}

resource "hypercompute_bucket" "state" {
  name     = var.bucket_name
  location = var.location

  # Every state write becomes a new object generation; the ones it replaced stay restorable,
  # so a bad apply or a corrupted write never loses the state before it.
  versioning = true
  # Destroying the bucket would lose every environment's record of what it owns.
  deletion_protection = true

  labels = {
    purpose    = "terraform-state"
    managed-by = "terraform"
  }
}
