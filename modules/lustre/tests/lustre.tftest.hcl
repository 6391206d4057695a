# Runs against the local cloud: tools/module-tests.sh exports HYPERCOMPUTE_EMULATOR_HOST.
provider "hypercompute" {
  project = "modtest-lustre"
  region  = "us-central1"
  zone    = "us-central1-a"
}

variables {
  name    = "mt-data"
  network = "mt-data-net"
}

run "protected_by_default" {
  command = plan

  assert {
    condition     = hypercompute_lustre.this.deletion_protection == true
    error_message = "Lustre must be protected against deletion unless the caller turns it off."
  }
}

run "network" {
  module {
    source = "../network"
  }

  variables {
    name = "mt-data-net"
  }
}

run "applies_lustre" {
  command = apply

  variables {
    network             = run.network.name
    zone                = "us-central1-b"
    filesystem          = "mtdata"
    capacity_gib        = 9000
    deletion_protection = false
  }

  assert {
    condition     = hypercompute_lustre.this.state == "ACTIVE"
    error_message = "The instance must be ACTIVE after apply."
  }

  assert {
    condition     = endswith(output.mount_source, "@tcp:/mtdata") && startswith(output.mount_source, output.ip_address)
    error_message = "The mount source must be <ip>@tcp:/<filesystem>."
  }
}

run "grows_in_place" {
  command = apply

  variables {
    network             = run.network.name
    zone                = "us-central1-b"
    filesystem          = "mtdata"
    capacity_gib        = 18000
    deletion_protection = false
  }

  assert {
    condition     = output.capacity_gib == 18000
    error_message = "Growing Lustre must be applied in place."
  }
}
