# A Slurm training cluster's control plane on its own VPC: /home on Filestore, a Managed Lustre
# file system for data and checkpoints, and a bucket of training data mounted with Cloud Storage
# FUSE. GPU partitions are hypercompute_node_partition resources that reference the cluster.
resource "hypercompute_network" "cluster" {
  name = "ml-dev"

  subnet = {
    cidr = "10.0.0.0/20"
  }
}

resource "hypercompute_filestore" "home" {
  name = "ml-dev-home"
  tier = "ZONAL"

  share = {
    capacity_gb = 1024
  }

  network = {
    name = hypercompute_network.cluster.name
  }
}

resource "hypercompute_lustre" "data" {
  name       = "ml-dev-data"
  filesystem = "lustrefs"
  network    = hypercompute_network.cluster.name
}

# A shared data set on Filestore, mounted at /datasets (an extra storage entry).
resource "hypercompute_filestore" "datasets" {
  name = "ml-dev-datasets"
  tier = "ZONAL"

  share = {
    capacity_gb = 1024
  }

  network = {
    name = hypercompute_network.cluster.name
  }
}

resource "hypercompute_training_cluster" "ml" {
  name    = "ml-dev"
  zone    = "us-central1-a"
  network = hypercompute_network.cluster.name

  home   = { filestore = hypercompute_filestore.home.id }
  lustre = { instance = hypercompute_lustre.data.id } # mounted at /lustre

  buckets = [
    { bucket = "ml-dev-datasets", mount_path = "/gcs/datasets", profile = "training" },
  ]

  # Further file systems at paths of their own: one of filestore, nfs_source, lustre or
  # lustre_source each. Node partitions mount all of them unless they choose with `storage`;
  # login VMs skip those with login = false.
  storage = [
    { mount_path = "/datasets", filestore = hypercompute_filestore.datasets.id },
    { mount_path = "/archive", nfs_source = "10.10.0.5:/archive", login = false },
  ]

  controller = {
    machine_type = "n2-standard-8"
  }

  # Login VMs may differ from the cluster: here they alone have public IPs (the controller stays
  # behind Cloud NAT and IAP), run in another zone of the region and carry a label of their own.
  login = {
    count            = 2
    machine_type     = "n2-standard-4"
    zone             = "us-central1-b"
    enable_public_ip = true
    labels           = { access = "users" }
  }

  # A further group of login VMs (ml-dev-login-research-0): bigger, for one team, behind IAP.
  login_pools = [
    { name = "research", count = 1, machine_type = "n2-standard-16", enable_public_ip = false, labels = { team = "research" } },
  ]

  # Changed in place: the controller's agent checks the new slurm.conf with slurmctld first, and
  # an apply with a setting slurmctld refuses fails with slurmctld's own words.
  slurm = {
    scheduler_parameters = ["bf_max_job_test=1000"]
    extra = {
      MaxJobCount = "20000"
    }
    prolog = <<-EOT
      #!/bin/bash
      mkdir -p "/lustre/scratch/$SLURM_JOB_USER"
    EOT
  }

  # slurmdbd with MariaDB inside the controller VM: sacct, sreport, fair share (sshare) and the
  # hypercompute_cluster_goodput data source. The database password never leaves the controller.
  accounting = {
    qos        = ["high", "low"]
    fair_share = true
    retention  = { job_days = 365, step_days = 90, event_days = 365 }
  }

  labels = {
    team = "ml"
  }
}

output "ssh" {
  value = hypercompute_training_cluster.ml.ssh_command
}
