# The reference architecture: one VPC, Filestore /home, optional Managed Lustre, the Slurm control
# plane and its partitions. Storage and network are modules of their own so replacing the cluster
# or a partition never touches /home or the checkpoints.
module "network" {
  source = "../network"

  name        = var.name
  project     = var.project
  region      = var.region
  subnet_cidr = var.network.subnet_cidr
  mtu         = var.network.mtu

  private_service_access = {
    prefix_length = var.network.psa_prefix_length
  }

  gpu_networks = var.network.gpu_stack == null ? null : {
    stack        = var.network.gpu_stack
    subnet_count = var.network.gpu_subnet_count
    zone         = var.network.gpu_stack == "rdma" ? var.zone : null

    subnet_prefix_length = var.network.gpu_subnet_prefix_length
  }
}

module "home" {
  source = "../filestore-home"

  name              = "${var.name}-home"
  project           = var.project
  location          = var.zone
  network           = module.network.name
  reserved_ip_range = module.network.private_service_access_range
  tier              = var.home.tier
  capacity_gb       = var.home.capacity_gb
  protocol          = var.home.protocol
  labels            = var.labels

  deletion_protection = var.deletion_protection
}

module "lustre" {
  source = "../lustre"
  count  = var.lustre == null ? 0 : 1

  name       = "${var.name}-data"
  project    = var.project
  zone       = var.zone
  network    = module.network.name
  filesystem = var.lustre.filesystem
  labels     = var.labels

  per_unit_storage_throughput = var.lustre.per_unit_storage_throughput
  capacity_gib                = var.lustre.capacity_gib

  deletion_protection = var.deletion_protection
}

resource "hypercompute_training_cluster" "this" {
  name    = var.name
  project = var.project
  zone    = var.zone
  network = module.network.name
  labels  = var.labels

  home = { filestore = module.home.id }

  lustre = var.lustre == null ? null : {
    instance   = module.lustre[0].id
    mount_path = var.lustre.mount_path
  }

  buckets = length(var.buckets) == 0 ? null : var.buckets

  controller = {
    machine_type = var.controller_machine_type
  }

  login = {
    count            = var.login.count
    machine_type     = var.login.machine_type
    zone             = var.login.zone
    labels           = var.login.labels
    enable_public_ip = var.login.enable_public_ip
    os_login         = var.login.os_login
  }
  login_pools = var.login_pools

  slurm = {
    extra                = var.slurm.extra
    scheduler_parameters = var.slurm.scheduler_parameters
    prolog               = var.slurm.prolog
    epilog               = var.slurm.epilog
    suspend_time         = var.slurm.suspend_time
    resume_timeout       = var.slurm.resume_timeout
  }

  agent               = var.agent
  deletion_protection = var.deletion_protection
}

module "partition" {
  source   = "../gpu-partition"
  for_each = var.partitions

  cluster                  = hypercompute_training_cluster.this.id
  cluster_node_config_hash = hypercompute_training_cluster.this.node_config_hash
  name                     = each.key
  machine_type             = each.value.machine_type
  zone                     = each.value.zone
  image                    = each.value.image
  boot_disk                = each.value.boot_disk
  labels                   = merge(var.labels, each.value.labels)

  static_node_count      = each.value.static_node_count
  max_dynamic_node_count = each.value.max_dynamic_node_count

  provisioning_model      = each.value.provisioning_model
  reservation             = each.value.reservation
  spot_termination_action = each.value.spot_termination_action
  max_run_duration        = each.value.max_run_duration
  compact_placement       = each.value.compact_placement

  default_partition  = each.value.default
  exclusive          = each.value.exclusive
  max_time           = each.value.max_time
  resume_timeout     = each.value.resume_timeout
  suspend_time       = each.value.suspend_time
  resume_retry_after = each.value.resume_retry_after
  features           = each.value.features
  slurm_extra        = each.value.extra

  rolling_update = each.value.rolling_update
}

resource "hypercompute_recipe_job" "this" {
  for_each = var.recipe_jobs

  cluster         = hypercompute_training_cluster.this.id
  partition       = module.partition[each.value.partition].name
  name            = each.key
  recipe          = each.value.recipe
  nodes           = each.value.nodes
  overrides       = each.value.overrides
  checkpoint      = each.value.checkpoint
  tensorboard_dir = each.value.tensorboard_dir
  export_path     = each.value.export_path
  time_limit      = each.value.time_limit
  wait_for        = each.value.wait_for

  timeouts = each.value.create_timeout == null ? null : { create = each.value.create_timeout }
}
