# ml-dev: the development environment, a whole Slurm training cluster: the network, Filestore /home,
# Managed Lustre, the cluster (controller and login VMs), a CPU debug partition (static nodes plus
# nodes Slurm creates on demand) and an L4 Spot partition that exists only while jobs need it. With
# HYPERCOMPUTE_EMULATOR_HOST set (as `make demo` does) the same blueprint runs against the local
# cloud, which boots the VMs and runs real Slurm on them.
provider "hypercompute" {
  project = var.project_id
  region  = var.region
  zone    = var.zone

  default_labels = {
    environment = "ml-dev"
    managed-by  = "terraform"
  }
}

resource "hypercompute_network" "cluster" {
  name = var.name
  mtu  = 8896

  subnet = {
    cidr = var.subnet_cidr
  }

  # Filestore /home and Managed Lustre attach through private service access.
  private_service_access = {
    prefix_length = 20
  }
}

# /home: outlives clusters, so it is its own resource, protected against deletion.
resource "hypercompute_filestore" "home" {
  name     = "${var.name}-home"
  location = var.zone
  tier     = "ZONAL"
  protocol = "NFS_V4_1"

  share = {
    name        = "home"
    capacity_gb = var.home_capacity_gb
  }

  network = {
    name              = hypercompute_network.cluster.name
    reserved_ip_range = hypercompute_network.cluster.private_service_access.range_name
  }

  deletion_protection = var.deletion_protection
}

# Datasets and checkpoints on Managed Lustre in the nodes' zone.
resource "hypercompute_lustre" "data" {
  name       = "${var.name}-data"
  zone       = var.zone
  filesystem = "mldev"
  network    = hypercompute_network.cluster.name

  per_unit_storage_throughput = 1000
  capacity_gib                = var.lustre_capacity_gib

  deletion_protection = var.deletion_protection
}

# The Slurm control plane: controller (slurmctld, slurmrestd, the agent) and login VMs, with /home
# and /lustre mounted everywhere. Partitions are separate resources that reference it.
resource "hypercompute_training_cluster" "ml" {
  name    = var.name
  zone    = var.zone
  network = hypercompute_network.cluster.name

  home   = { filestore = hypercompute_filestore.home.id }
  lustre = { instance = hypercompute_lustre.data.id }

  controller = {
    machine_type = "n2-standard-8"
  }

  login = {
    count        = var.login_count
    machine_type = "n2-standard-4"
  }

  slurm = {
    extra = {
      MaxJobCount = "20000"
    }
  }

  agent               = var.agent
  deletion_protection = var.deletion_protection
}

# A CPU partition for development: two nodes that always run and up to four more that Slurm
# creates when jobs wait and deletes when they have been idle for ten minutes.
resource "hypercompute_node_partition" "debug" {
  cluster      = hypercompute_training_cluster.ml.id
  name         = "debug"
  machine_type = "n2-standard-4"

  # A cluster change that affects nodes (a new agent build) replaces the static nodes one at a
  # time; a job on a node being replaced gets 10 minutes, then is requeued.
  cluster_node_config_hash = hypercompute_training_cluster.ml.node_config_hash
  rolling_update = {
    max_unavailable = "1"
    job_timeout     = "10m"
  }

  static_node_count      = var.debug_nodes
  max_dynamic_node_count = 4

  slurm = {
    default      = true
    max_time     = "04:00:00"
    suspend_time = 600
  }
}

# L4 GPUs on Spot VMs for evaluation jobs: none exist until a job asks for them.
resource "hypercompute_node_partition" "l4" {
  cluster                  = hypercompute_training_cluster.ml.id
  cluster_node_config_hash = hypercompute_training_cluster.ml.node_config_hash
  name                     = "l4"
  machine_type             = "g2-standard-48"
  max_dynamic_node_count   = 2

  provisioning = {
    model = "spot"
  }

  slurm = {
    suspend_time = 300
  }
}

# A small decoder-only language model trained with real PyTorch DistributedDataParallel on two
# debug nodes: the recipe catalog's CPU recipe. Checkpoints go to /lustre/checkpoints/<name>; the
# apply ends when Slurm reports the job COMPLETED.
resource "hypercompute_recipe_job" "tiny_gpt" {
  cluster   = hypercompute_training_cluster.ml.id
  partition = hypercompute_node_partition.debug.name
  name      = "tiny-gpt-pretrain"
  nodes     = 2

  recipe = {
    model = "tiny-gpt"
    size  = "2m"
    mode  = "pretrain"
  }

  overrides = {
    max_steps = var.training_steps
  }

  checkpoint = {
    interval  = "20s"
    keep_last = 2
  }

  wait_for = "completed"
  timeouts = { create = "20m" }
}
