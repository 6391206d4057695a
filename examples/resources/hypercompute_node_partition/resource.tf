# An A3 Mega partition of a training cluster: 16 nodes that always run, on a reservation, and up
# to 48 more that Slurm creates when jobs need them and deletes when idle. The cluster's network
# carries the TCPXO GPU network set the machines' eight GPU NICs attach to.
resource "hypercompute_network" "cluster" {
  name   = "ml-prod"
  subnet = { cidr = "10.0.0.0/20" }

  gpu_networks = {
    stack = "tcpxo"
  }
}

resource "hypercompute_node_partition" "a3mega" {
  cluster      = hypercompute_training_cluster.prod.id
  name         = "a3mega"
  machine_type = "a3-megagpu-8g"

  static_node_count      = 16
  max_dynamic_node_count = 48

  # A cluster change that affects nodes (a new agent build) replaces the static nodes, two at a
  # time, never fewer than 14 in service; a job on a node being replaced gets 2 hours, then it is
  # requeued (recipe jobs resume from their last checkpoint).
  cluster_node_config_hash = hypercompute_training_cluster.prod.node_config_hash
  rolling_update = {
    max_unavailable = "2"
    min_available   = 14
    job_timeout     = "2h"
  }

  provisioning = {
    model       = "reservation"
    reservation = "projects/ml-capacity/reservations/a3mega-us-central1-a" # shared from another project
  }

  placement = {
    compact = true
  }

  labels = {
    team = "pretraining"
  }

  slurm = merge(local.a3mega_partition, {
    features = ["tcpxo"]
  })
}

# More A3 Mega capacity in the same Slurm partition: node sets that join "a3mega" with
# slurm.partition. Slurm gives a job the lowest-weight nodes that fit it, and the weights default
# from the provisioning model (reservation 10, on-demand 20, Spot 30, flex-start 40), so jobs fill
# the reservation first, then Spot nodes, then flex-start ones. Each node set has its own template,
# counts and node names (a3mega-spot-d0, ...), and can be added or removed without touching the
# others.
locals {
  # What every node set of Slurm partition a3mega shares (one PartitionName line in slurm.conf).
  a3mega_partition = {
    default        = true
    exclusive      = true
    max_time       = "7-00:00:00"
    resume_timeout = 1200
    extra = {
      DefaultTime = "01:00:00"
    }
  }
}

resource "hypercompute_node_partition" "a3mega_spot" {
  cluster                = hypercompute_training_cluster.prod.id
  name                   = "a3mega-spot"
  machine_type           = "a3-megagpu-8g"
  max_dynamic_node_count = 32

  provisioning = {
    model = "spot"
  }

  slurm = merge(local.a3mega_partition, {
    partition = hypercompute_node_partition.a3mega.name
    features  = ["tcpxo"]
  })
}

resource "hypercompute_node_partition" "a3mega_flex" {
  cluster                = hypercompute_training_cluster.prod.id
  name                   = "a3mega-flex"
  machine_type           = "a3-megagpu-8g"
  max_dynamic_node_count = 16

  provisioning = {
    model            = "flex_start"
    max_run_duration = "3d"
  }

  slurm = merge(local.a3mega_partition, {
    partition = hypercompute_node_partition.a3mega.name
    weight    = 50 # its own weight; without it flex-start's default, 40
  })
}

# Spot L4 nodes for evaluation jobs: only created on demand, deleted after 5 idle minutes. When the
# zone has no Spot capacity, a node that could not be created is tried again after 2 minutes.
resource "hypercompute_node_partition" "eval" {
  cluster                = hypercompute_training_cluster.prod.id
  name                   = "eval"
  machine_type           = "g2-standard-48"
  max_dynamic_node_count = 8

  # Of the cluster's extra storage and buckets, only the evaluation sets (by mount path); /home
  # and the cluster's lustre are on every node. Unset: all of them.
  storage = ["/datasets"]

  provisioning = {
    model = "spot"
  }

  slurm = {
    suspend_time       = 300
    resume_retry_after = 120
  }
}

# Two weeks of A3 Mega capacity bought in calendar mode (a future reservation, e.g.
# `gcloud compute future-reservations create a3mega-q1 --reservation-mode=CALENDAR ...`). The plan says
# when the capacity arrives; until then the nodes are drained and jobs wait. When Compute delivers it,
# the cluster's controller creates the 8 nodes on the delivered reservation; 30 minutes before the end
# their jobs get SIGUSR1 to checkpoint, and at the end the nodes are removed.
resource "hypercompute_node_partition" "a3mega_calendar" {
  cluster           = hypercompute_training_cluster.prod.id
  name              = "a3megacal"
  machine_type      = "a3-megagpu-8g"
  static_node_count = 8

  provisioning = {
    model              = "calendar"
    future_reservation = "a3mega-q1"
  }

  slurm = {
    exclusive = true
    max_time  = "2-00:00:00"
  }
}
