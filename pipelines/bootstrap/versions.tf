terraform {
  required_version = ">= 1.5"

  # The bucket that holds every other configuration's state cannot hold this one's before it
  # exists: this configuration starts with local state, which README.md says how to move into
  # the bucket once it is made.

  required_providers {
    hypercompute = {
      source = "hypercompute/hypercompute"
    }
  }
}
