# The machine's facts come from the provider's own table, never restated here.
data "hypercompute_machine_type" "this" {
  name = var.machine_type
}

locals {
  # GPU machines: whole-node jobs (NCCL wants every GPU and NIC of a node) and the provider's
  # longer boot allowance (large images, driver load, GPU health checks before registering).
  is_gpu = data.hypercompute_machine_type.this.gpu_count > 0

  exclusive      = coalesce(var.exclusive, local.is_gpu)
  min_resume     = data.hypercompute_machine_type.this.min_resume_timeout
  resume_timeout = var.resume_timeout != null ? var.resume_timeout : (local.min_resume > 0 ? local.min_resume : null)
}

resource "hypercompute_node_partition" "this" {
  cluster      = var.cluster
  name         = var.name
  machine_type = var.machine_type
  zone         = var.zone
  image        = var.image
  labels       = var.labels
  boot_disk    = var.boot_disk

  static_node_count      = var.static_node_count
  max_dynamic_node_count = var.max_dynamic_node_count
  allow_partial          = var.allow_partial
  force_scale_down       = var.force_scale_down

  cluster_node_config_hash = var.cluster_node_config_hash
  rolling_update           = var.rolling_update

  provisioning = {
    model              = var.provisioning_model
    reservation        = var.reservation
    termination_action = var.spot_termination_action
    max_run_duration   = var.max_run_duration
  }

  placement = var.compact_placement ? { compact = true } : null

  slurm = {
    default            = var.default_partition
    exclusive          = local.exclusive
    max_time           = var.max_time
    resume_timeout     = local.resume_timeout
    suspend_time       = var.suspend_time
    resume_retry_after = var.resume_retry_after
    features           = var.features
    extra              = var.slurm_extra
    partition          = var.slurm_partition
    weight             = var.node_weight
  }
}
