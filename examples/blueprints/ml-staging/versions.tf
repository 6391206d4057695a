terraform {
  required_version = ">= 1.5"
  required_providers {
    hypercompute = {
      source = "hypercompute/hypercompute"
    }
  }
}
