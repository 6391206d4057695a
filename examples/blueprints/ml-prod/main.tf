# ml-prod: the production training environment on the reference architecture. A3 Mega nodes on a
# reservation with compact placement and the TCPXO GPU network set for pretraining; L4 Spot nodes
# for evaluation; /home on Filestore and checkpoints on Managed Lustre, both protected.
provider "hypercompute" {
  project = var.project_id
  region  = var.region
  zone    = var.zone

  default_labels = {
    environment = "ml-prod"
    managed-by  = "terraform"
  }
}

module "cluster" {
  source = "../../../modules/training-cluster"

  name   = var.name
  region = var.region
  zone   = var.zone

  # A3 Mega's eight GPU NICs attach to the eight TCPXO VPCs; each node takes one address in each
  # of their subnets, sized for the whole A3 Mega partition.
  network = {
    subnet_cidr              = var.subnet_cidr
    gpu_stack                = "tcpxo"
    gpu_subnet_prefix_length = var.gpu_subnet_prefix_length
  }

  home = {
    tier        = "ZONAL"
    capacity_gb = var.home_capacity_gb
  }

  lustre = {
    capacity_gib                = var.lustre_capacity_gib
    per_unit_storage_throughput = 1000
    filesystem                  = "mlprod"
  }

  controller_machine_type = "n2-standard-16"

  login = {
    count        = var.login_count
    machine_type = "n2-standard-8"
  }

  slurm = {
    scheduler_parameters = ["bf_max_job_test=1000"]
    extra = {
      MaxJobCount = "50000"
    }
    prolog = <<-EOT
      #!/bin/bash
      mkdir -p "/lustre/scratch/$SLURM_JOB_USER"
    EOT
  }

  partitions = {
    a3mega = {
      machine_type           = "a3-megagpu-8g"
      static_node_count      = var.a3mega_static_nodes
      max_dynamic_node_count = var.a3mega_dynamic_nodes
      provisioning_model     = "reservation"
      reservation            = var.a3mega_reservation
      compact_placement      = true
      default                = true
      max_time               = "7-00:00:00"
      features               = ["tcpxo"]
      extra = {
        DefaultTime = "01:00:00"
      }
      labels = {
        workload = "pretraining"
      }
    }
    eval = {
      machine_type            = "g2-standard-48"
      max_dynamic_node_count  = var.eval_max_nodes
      provisioning_model      = "spot"
      spot_termination_action = "DELETE"
      max_time                = "12:00:00"
      suspend_time            = 300
      # Production policy (policies/): Spot capacity only where the jobs may be preempted.
      labels = {
        workload    = "eval"
        preemptible = "true"
      }
    }
  }

  labels = {
    team = "ml-platform"
  }

  agent = var.agent

  # On by default: the cluster, /home and the checkpoints refuse deletion. Tearing ml-prod down
  # takes two reviewed applies: deletion_protection = false first, then terraform destroy.
  deletion_protection = var.deletion_protection
}
