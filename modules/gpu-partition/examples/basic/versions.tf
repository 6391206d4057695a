terraform {
  required_version = ">= 1.9"

  required_providers {
    hypercompute = {
      source = "hypercompute/hypercompute"
    }
  }
}
