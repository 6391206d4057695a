# Production: Application Default Credentials, defaults for every resource.
provider "hypercompute" {
  project = "ml-prod-123456"
  region  = "us-central1"
  zone    = "us-central1-a"

  default_labels = {
    team = "ml-platform"
    env  = "prod"
  }
}

# The local cloud: every API served by `hypercompute-emulator`, no Google account needed.
# Equivalent to exporting HYPERCOMPUTE_EMULATOR_HOST=127.0.0.1:8780.
provider "hypercompute" {
  alias         = "local"
  project       = "ml-dev-local"
  region        = "us-central1"
  zone          = "us-central1-a"
  emulator_host = "127.0.0.1:8780"
}
