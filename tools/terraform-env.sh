#!/usr/bin/env bash
# Sourced by the demo and module tests: installs ./bin's provider into a local filesystem mirror
# and points Terraform at it, so `terraform init` works with no registry (local module blocks
# need a real init; dev_overrides alone cannot init).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${HYPERCOMPUTE_VERSION:-0.1.0}"
mirror="$root/.tmp/tf-mirror"
plat="$(go env GOOS)_$(go env GOARCH)"
dir="$mirror/registry.terraform.io/hypercompute/hypercompute/$version/$plat"
mkdir -p "$dir"
cp "$root/bin/terraform-provider-hypercompute" "$dir/terraform-provider-hypercompute_v$version"
export TF_CLI_CONFIG_FILE="$root/.tmp/terraformrc"
cat >"$TF_CLI_CONFIG_FILE" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["hypercompute/hypercompute"]
  }
  direct {
    exclude = ["hypercompute/hypercompute"]
  }
}
RC
export TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
