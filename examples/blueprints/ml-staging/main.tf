# ml-staging: a small copy of ml-prod's shape for trying releases and recipes before production:
# the same TCPXO network and A3 Mega machines (flex-start instead of a reservation, none kept
# running), a CPU debug partition and a couple of L4 Spot nodes for evaluation.
provider "hypercompute" {
  project = var.project_id
  region  = var.region
  zone    = var.zone

  default_labels = {
    environment = "ml-staging"
    managed-by  = "terraform"
  }
}

module "cluster" {
  source = "../../../modules/training-cluster"

  name   = var.name
  region = var.region
  zone   = var.zone

  network = {
    subnet_cidr = var.subnet_cidr
    gpu_stack   = "tcpxo"
  }

  home = {
    capacity_gb = var.home_capacity_gb
  }

  lustre = {
    capacity_gib = var.lustre_capacity_gib
    filesystem   = "mlstage"
  }

  login = {
    count = 1
  }

  partitions = {
    debug = {
      machine_type           = "n2-standard-4"
      static_node_count      = var.debug_nodes
      max_dynamic_node_count = 2
      default                = true
      max_time               = "04:00:00"
    }
    a3mega = {
      machine_type           = "a3-megagpu-8g"
      max_dynamic_node_count = var.a3mega_max_nodes
      provisioning_model     = "flex_start"
      max_run_duration       = "24h"
      max_time               = "1-00:00:00"
      features               = ["tcpxo"]
    }
    eval = {
      machine_type           = "g2-standard-48"
      max_dynamic_node_count = 2
      provisioning_model     = "spot"
      max_time               = "06:00:00"
      suspend_time           = 300
    }
  }

  agent               = var.agent
  deletion_protection = var.deletion_protection
}
