# Runs against the local cloud: tools/module-tests.sh exports HYPERCOMPUTE_EMULATOR_HOST.
provider "hypercompute" {
  project = "modtest-network"
  region  = "us-central1"
  zone    = "us-central1-a"
}

variables {
  name = "mt-net"
}

run "rejects_bad_name" {
  command = plan

  variables {
    name = "Net_1"
  }

  expect_failures = [var.name]
}

run "rejects_bad_subnet_cidr" {
  command = plan

  variables {
    subnet_cidr = "10.0.0.0/30"
  }

  expect_failures = [var.subnet_cidr]
}

run "rejects_bad_mtu" {
  command = plan

  variables {
    mtu = 9000
  }

  expect_failures = [var.mtu]
}

run "rejects_unknown_gpu_stack" {
  command = plan

  variables {
    gpu_networks = { stack = "infiniband" }
  }

  expect_failures = [var.gpu_networks]
}

run "rejects_zone_outside_rdma" {
  command = plan

  variables {
    gpu_networks = { stack = "tcpxo", zone = "us-central1-a" }
  }

  expect_failures = [var.gpu_networks]
}

run "plans_tcpxo_set" {
  command = plan

  variables {
    gpu_networks = { stack = "tcpxo" }
  }

  assert {
    condition     = hypercompute_network.this.gpu_networks.stack == "tcpxo"
    error_message = "The tcpxo stack must reach the network resource."
  }

  assert {
    condition     = hypercompute_network.this.gpu_networks.subnet_count == null || hypercompute_network.this.gpu_networks.subnet_count == 8
    error_message = "The module must leave the tcpxo subnet count to the stack."
  }
}

run "plans_without_private_service_access" {
  command = plan

  variables {
    private_service_access = null
  }

  assert {
    condition     = hypercompute_network.this.private_service_access.enabled == false
    error_message = "A null private_service_access must disable it on the network."
  }

  assert {
    condition     = output.private_service_access_range == null
    error_message = "Without private service access there is no range to output."
  }
}

run "applies_secure_defaults" {
  command = apply

  assert {
    condition     = output.subnet.name == "mt-net-subnet"
    error_message = "The primary subnet must be named <name>-subnet."
  }

  assert {
    condition     = output.private_service_access_range == "mt-net-psa"
    error_message = "Private service access must be on by default with the range <name>-psa."
  }

  assert {
    condition     = output.router_name == "mt-net-router"
    error_message = "Cloud NAT must be on by default behind the router <name>-router."
  }

  assert {
    condition     = hypercompute_network.this.mtu == 8896
    error_message = "The default MTU must be 8896."
  }

  assert {
    condition     = length(output.firewall_rules) > 0
    error_message = "The network must own its firewall rules."
  }

  assert {
    condition     = length(output.gpu_attachments) == 0
    error_message = "No GPU network set is created unless asked for."
  }
}

run "applies_rdma_set" {
  command = apply

  variables {
    name        = "mt-rdma"
    subnet_cidr = "10.20.0.0/20"
    enable_nat  = false
    gpu_networks = {
      stack        = "rdma"
      zone         = "us-central1-b"
      subnet_count = 4
    }
  }

  assert {
    condition     = length([for a in output.gpu_attachments : a if a.nic_type == "MRDMA"]) == 4
    error_message = "The RDMA set must have one MRDMA attachment per requested subnet."
  }

  assert {
    condition     = output.router_name == ""
    error_message = "With NAT disabled the network must own no router."
  }
}
