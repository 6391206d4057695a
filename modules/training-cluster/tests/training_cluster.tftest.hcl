# Plan-only: a cluster's apply waits for the controller's agent to report, and the API-only local
# cloud boots no VMs. Applies run in the Go acceptance tests and `make demo` (local runtime).
provider "hypercompute" {
  project = "modtest-cluster"
  region  = "us-central1"
  zone    = "us-central1-a"
}

variables {
  name = "mt-cluster"
  zone = "us-central1-a"
  # A development build of the provider requires an agent; a plan never fetches it.
  agent = {
    url    = "file:///opt/hypercompute/hypercompute-agent"
    sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
  }
}

run "rejects_bad_name" {
  command = plan

  variables {
    name = "ML_Cluster"
  }

  expect_failures = [var.name]
}

run "rejects_bad_login_zone" {
  command = plan

  variables {
    login = { zone = "us-central1" }
  }

  expect_failures = [var.login]
}

run "rejects_login_pool_twice" {
  command = plan

  variables {
    login_pools = [{ name = "dev" }, { name = "dev" }]
  }

  expect_failures = [var.login_pools]
}

run "rejects_zone_outside_region" {
  command = plan

  variables {
    region = "europe-west4"
  }

  expect_failures = [var.zone]
}

run "rejects_two_default_partitions" {
  command = plan

  variables {
    partitions = {
      a = { machine_type = "n2-standard-4", max_dynamic_node_count = 1, default = true }
      b = { machine_type = "n2-standard-4", max_dynamic_node_count = 1, default = true }
    }
  }

  expect_failures = [var.partitions]
}

run "rejects_bad_agent_digest" {
  command = plan

  variables {
    agent = { url = "file:///opt/agent", sha256 = "abc" }
  }

  expect_failures = [var.agent]
}

run "rejects_prolog_without_shebang" {
  command = plan

  variables {
    slurm = { prolog = "echo hi" }
  }

  expect_failures = [var.slurm]
}

run "rejects_reservation_model_without_reservation" {
  command = plan

  variables {
    partitions = {
      a3mega = { machine_type = "a3-megagpu-8g", max_dynamic_node_count = 2, provisioning_model = "reservation" }
    }
  }

  expect_failures = [var.partitions]
}

run "plans_reference_architecture" {
  command = plan

  variables {
    network     = { gpu_stack = "tcpxo" }
    lustre      = { capacity_gib = 18000 }
    login       = { count = 2, zone = "us-central1-b", enable_public_ip = true, labels = { access = "users" } }
    login_pools = [{ name = "research", count = 1, machine_type = "n2-standard-8" }]
    partitions = {
      debug = { machine_type = "n2-standard-4", static_node_count = 1, default = true }
      a3mega = {
        machine_type           = "a3-megagpu-8g"
        static_node_count      = 2
        provisioning_model     = "reservation"
        reservation            = "a3mega-res"
        compact_placement      = true
        max_dynamic_node_count = 2
      }
    }
  }

  assert {
    condition     = hypercompute_training_cluster.this.deletion_protection && module.home.protocol == "NFS_V4_1"
    error_message = "The cluster must be protected by default and /home must be NFSv4.1."
  }

  assert {
    condition     = module.network.name == "mt-cluster" && hypercompute_training_cluster.this.network == "mt-cluster"
    error_message = "The cluster must run on its own network, named after it."
  }

  assert {
    condition     = length(module.lustre) == 1 && hypercompute_training_cluster.this.lustre.mount_path == "/lustre"
    error_message = "Lustre must be created and mounted at /lustre when asked for."
  }

  assert {
    condition     = hypercompute_training_cluster.this.login.count == 2 && hypercompute_training_cluster.this.login.zone == "us-central1-b" && hypercompute_training_cluster.this.login.enable_public_ip && hypercompute_training_cluster.this.login.labels["access"] == "users"
    error_message = "The login count, zone, public IP and labels must reach the cluster."
  }

  assert {
    condition     = hypercompute_training_cluster.this.login.os_login && output.ssh_command == "gcloud compute ssh mt-cluster-login-0 --zone us-central1-b"
    error_message = "Login OS Login must default to the cluster's, and ssh_command must reach the first login VM in its zone without IAP."
  }

  assert {
    condition     = length(hypercompute_training_cluster.this.login_nodes) == 3 && hypercompute_training_cluster.this.login_nodes[2].name == "mt-cluster-login-research-0" && hypercompute_training_cluster.this.login_pools[0].zone == "us-central1-a"
    error_message = "The login pool must reach the cluster, its VMs listed after the login block's, in the cluster's zone by default."
  }

  assert {
    condition     = toset(keys(module.partition)) == toset(["debug", "a3mega"])
    error_message = "Every partition in the map must become a gpu-partition module."
  }

  assert {
    condition     = output.mounts.lustre.path == "/lustre" && output.mounts.home.path == "/home"
    error_message = "The mounts output must describe /home and /lustre."
  }
}

run "plans_without_lustre" {
  command = plan

  variables {
    deletion_protection = false
  }

  assert {
    condition     = length(module.lustre) == 0 && hypercompute_training_cluster.this.lustre == null
    error_message = "No Lustre unless asked for."
  }

  assert {
    condition     = output.mounts.lustre == null
    error_message = "The mounts output must have no Lustre entry without Lustre."
  }

  assert {
    condition     = hypercompute_training_cluster.this.deletion_protection == false
    error_message = "deletion_protection = false must reach the cluster."
  }
}

run "rejects_recipe_job_on_unknown_partition" {
  command = plan

  variables {
    partitions = {
      cpu = { machine_type = "n2-standard-4", static_node_count = 2 }
    }
    recipe_jobs = {
      train = { partition = "gpu", recipe = { model = "tiny-gpt", size = "2m", mode = "pretrain" } }
    }
  }

  expect_failures = [var.recipe_jobs]
}

run "rejects_recipe_job_bad_interval" {
  command = plan

  variables {
    partitions = {
      cpu = { machine_type = "n2-standard-4", static_node_count = 2 }
    }
    recipe_jobs = {
      train = {
        partition  = "cpu"
        recipe     = { model = "tiny-gpt", size = "2m", mode = "pretrain" }
        checkpoint = { interval = "often" }
      }
    }
  }

  expect_failures = [var.recipe_jobs]
}

run "rejects_recipe_job_bad_wait_for" {
  command = plan

  variables {
    partitions = {
      cpu = { machine_type = "n2-standard-4", static_node_count = 2 }
    }
    recipe_jobs = {
      train = { partition = "cpu", recipe = { model = "tiny-gpt", size = "2m", mode = "pretrain" }, wait_for = "forever" }
    }
  }

  expect_failures = [var.recipe_jobs]
}

run "plans_recipe_job" {
  command = plan

  variables {
    partitions = {
      cpu = { machine_type = "n2-standard-4", static_node_count = 2 }
    }
    recipe_jobs = {
      tiny = {
        partition  = "cpu"
        recipe     = { model = "tiny-gpt", size = "2m", mode = "pretrain" }
        nodes      = 2
        overrides  = { max_steps = 100 }
        checkpoint = { interval = "30s" }
        wait_for   = "completed"
      }
    }
  }

  assert {
    condition     = hypercompute_recipe_job.this["tiny"].partition == "cpu" && hypercompute_recipe_job.this["tiny"].wait_for == "completed"
    error_message = "The recipe job runs on the cpu partition and waits for completion."
  }
}
