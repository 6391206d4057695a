# Runs against the local cloud: tools/module-tests.sh exports HYPERCOMPUTE_EMULATOR_HOST.
provider "hypercompute" {
  project = "modtest-home"
  region  = "us-central1"
  zone    = "us-central1-a"
}

variables {
  name    = "mt-home"
  network = "mt-home-net"
}

run "protected_by_default" {
  command = plan

  assert {
    condition     = hypercompute_filestore.this.deletion_protection == true
    error_message = "/home must be protected against deletion unless the caller turns it off."
  }

  assert {
    condition     = hypercompute_filestore.this.tier == "ZONAL" && hypercompute_filestore.this.protocol == "NFS_V4_1"
    error_message = "The default /home must be a ZONAL NFSv4.1 share."
  }
}

# The network /home attaches to, through its private service access range.
run "network" {
  module {
    source = "../network"
  }

  variables {
    name = "mt-home-net"
  }
}

run "applies_home" {
  command = apply

  variables {
    network             = run.network.name
    reserved_ip_range   = run.network.private_service_access_range
    deletion_protection = false
  }

  assert {
    condition     = output.mount_source == "${output.ip_address}:/home"
    error_message = "The mount source must be <ip>:/home."
  }

  assert {
    condition     = hypercompute_filestore.this.state == "READY"
    error_message = "The instance must be READY after apply."
  }

  assert {
    condition     = strcontains(output.mount_options, "hard")
    error_message = "The recommended /home mount options must use hard mounts."
  }

  assert {
    condition     = hypercompute_filestore.this.effective_labels["purpose"] == "home"
    error_message = "The instance must carry the purpose=home label."
  }
}

run "grows_in_place" {
  command = apply

  variables {
    network             = run.network.name
    reserved_ip_range   = run.network.private_service_access_range
    deletion_protection = false
    capacity_gb         = 1280
  }

  assert {
    condition     = hypercompute_filestore.this.share.capacity_gb == 1280
    error_message = "Growing the share must be applied in place."
  }
}
