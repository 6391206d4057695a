terraform {
  required_version = ">= 1.5"

  # State lives in Cloud Storage, one prefix per environment, locked while a command runs. The
  # bucket and prefix come at init: backend/ml-staging.hcl on Google Cloud, backend/local.hcl on the
  # local cloud (pipelines/run.sh picks one; README.md says how).
  backend "gcs" {}

  required_providers {
    hypercompute = {
      source = "hypercompute/hypercompute"
    }
  }
}
