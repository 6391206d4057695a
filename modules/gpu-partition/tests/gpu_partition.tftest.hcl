# Plan-only: a partition's apply waits for the cluster's controller agent to apply its
# configuration, and the API-only local cloud boots no VMs. Applies are covered by the Go
# acceptance tests and `make demo`.
provider "hypercompute" {
  project = "modtest-part"
  region  = "us-central1"
  zone    = "us-central1-a"
}

variables {
  cluster                = "projects/modtest-part/zones/us-central1-a/clusters/mt"
  name                   = "a3mega"
  machine_type           = "a3-megagpu-8g"
  max_dynamic_node_count = 4
}

run "rejects_bad_cluster_id" {
  command = plan

  variables {
    cluster = "mt"
  }

  expect_failures = [var.cluster]
}

run "rejects_bad_partition_name" {
  command = plan

  variables {
    name = "1gpu"
  }

  expect_failures = [var.name]
}

run "rejects_empty_partition" {
  command = plan

  variables {
    max_dynamic_node_count = 0
  }

  expect_failures = [var.max_dynamic_node_count]
}

run "rejects_reservation_model_without_reservation" {
  command = plan

  variables {
    provisioning_model = "reservation"
  }

  expect_failures = [var.reservation]
}

run "rejects_reservation_with_other_model" {
  command = plan

  variables {
    reservation = "a3mega-res"
  }

  expect_failures = [var.reservation]
}

run "rejects_termination_action_off_spot" {
  command = plan

  variables {
    spot_termination_action = "STOP"
  }

  expect_failures = [var.spot_termination_action]
}

run "rejects_max_run_duration_off_flex_start" {
  command = plan

  variables {
    max_run_duration = "24h"
  }

  expect_failures = [var.max_run_duration]
}

run "rejects_static_flex_start_nodes" {
  command = plan

  variables {
    provisioning_model = "flex_start"
    static_node_count  = 2
  }

  expect_failures = [var.static_node_count]
}

run "rejects_bad_max_time" {
  command = plan

  variables {
    max_time = "a week"
  }

  expect_failures = [var.max_time]
}

run "rejects_resume_retry_above_a_day" {
  command = plan

  variables {
    resume_retry_after = 90000
  }

  expect_failures = [var.resume_retry_after]
}

run "resume_retry_reaches_the_partition" {
  command = plan

  variables {
    resume_retry_after = 0
  }

  assert {
    condition     = hypercompute_node_partition.this.slurm.resume_retry_after == 0
    error_message = "resume_retry_after = 0 (never retry) must reach the partition's Slurm options."
  }
}

run "rejects_bad_node_weight" {
  command = plan

  variables {
    node_weight = 0
  }

  expect_failures = [var.node_weight]
}

run "rejects_bad_slurm_partition" {
  command = plan

  variables {
    slurm_partition = "gpu spot"
  }

  expect_failures = [var.slurm_partition]
}

run "joins_a_slurm_partition" {
  command = plan

  variables {
    name               = "a3mega-spot"
    provisioning_model = "spot"
    slurm_partition    = "a3mega"
    node_weight        = 25
  }

  assert {
    condition     = hypercompute_node_partition.this.slurm.partition == "a3mega" && hypercompute_node_partition.this.slurm.weight == 25
    error_message = "slurm_partition and node_weight must reach the node set's Slurm options."
  }
}

run "gpu_defaults" {
  command = plan

  variables {
    provisioning_model = "reservation"
    reservation        = "projects/ml-capacity/reservations/a3mega"
    compact_placement  = true
    static_node_count  = 2
  }

  assert {
    condition     = hypercompute_node_partition.this.slurm.exclusive == true && hypercompute_node_partition.this.slurm.resume_timeout == 1200
    error_message = "GPU partitions must default to exclusive nodes and a 1200 s resume timeout."
  }

  assert {
    condition     = hypercompute_node_partition.this.provisioning.reservation == "projects/ml-capacity/reservations/a3mega"
    error_message = "The reservation must reach the partition."
  }

  assert {
    condition     = hypercompute_node_partition.this.placement.compact == true
    error_message = "compact_placement must set a compact placement policy."
  }

  assert {
    condition     = output.is_gpu
    error_message = "a3-megagpu-8g must count as a GPU machine."
  }
}

run "cpu_defaults" {
  command = plan

  variables {
    name              = "debug"
    machine_type      = "n2-standard-4"
    default_partition = true
  }

  assert {
    condition     = hypercompute_node_partition.this.slurm.exclusive == false
    error_message = "CPU partitions must default to shared nodes."
  }

  assert {
    condition     = hypercompute_node_partition.this.placement == null
    error_message = "No placement policy unless asked for."
  }

  assert {
    condition     = !output.is_gpu
    error_message = "n2-standard-4 must not count as a GPU machine."
  }
}

run "spot_and_flex_start" {
  command = plan

  variables {
    name                    = "eval"
    machine_type            = "g2-standard-48"
    provisioning_model      = "spot"
    spot_termination_action = "DELETE"
    exclusive               = false
  }

  assert {
    condition     = hypercompute_node_partition.this.provisioning.model == "spot" && hypercompute_node_partition.this.slurm.exclusive == false
    error_message = "An explicit exclusive = false must win over the GPU default on a spot partition."
  }
}

run "flex_start" {
  command = plan

  variables {
    provisioning_model = "flex_start"
    max_run_duration   = "24h"
  }

  assert {
    condition     = hypercompute_node_partition.this.provisioning.max_run_duration == "24h"
    error_message = "Flex-start's max run duration must reach the partition."
  }
}
