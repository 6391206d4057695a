terraform {
  # Validations that refer to other variables need Terraform 1.9.
  required_version = ">= 1.9"

  required_providers {
    hypercompute = {
      source = "hypercompute/hypercompute"
      # 0.x: minor releases may change schemas; pin the minor in production.
      version = "~> 0.1"
    }
  }
}
