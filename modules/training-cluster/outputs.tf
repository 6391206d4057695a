output "cluster_id" {
  description = "ID of the training cluster, projects/{project}/zones/{zone}/clusters/{name}; partitions added outside the module reference it."
  value       = hypercompute_training_cluster.this.id
}

output "ssh_command" {
  description = "gcloud compute ssh to the first login VM in its zone (the controller when there is none), through IAP unless the login VMs have public IPs."
  value       = hypercompute_training_cluster.this.ssh_command
}

output "controller" {
  description = "The controller VM: name, internal_ip and self_link."
  value       = hypercompute_training_cluster.this.controller
}

output "login_nodes" {
  description = "The login VMs in index order: name, internal_ip and zone."
  value       = hypercompute_training_cluster.this.login_nodes
}

output "slurmrestd_endpoint" {
  description = "slurmrestd on the controller, reachable inside the VPC."
  value       = hypercompute_training_cluster.this.slurmrestd_endpoint
}

output "config_hash" {
  description = "Hash of the cluster's own Slurm configuration (without partitions): it changes only when the cluster's Slurm settings change."
  value       = hypercompute_training_cluster.this.config_hash
}

output "node_config_hash" {
  description = "Hash of what compute nodes take from the cluster at boot; its partitions are given it, so a change rolls their static nodes."
  value       = hypercompute_training_cluster.this.node_config_hash
}

output "config_drift" {
  description = "What the controller runs that nobody declared, as of the last refresh (empty after every apply)."
  value       = hypercompute_training_cluster.this.config_drift
}

output "partitions" {
  description = "Slurm partitions keyed by name: machine type, node name prefix, static and dynamic node hostlists."
  value = {
    for k, p in module.partition : k => {
      id                 = p.id
      machine_type       = p.machine_type
      node_name_prefix   = p.node_name_prefix
      static_node_names  = p.static_node_names
      dynamic_node_names = p.dynamic_node_names
    }
  }
}

output "mounts" {
  description = "What every VM mounts: /home (NFS source and options) and, when created, Lustre (source and path)."
  value = {
    home = {
      path    = "/home"
      source  = module.home.mount_source
      options = module.home.mount_options
    }
    lustre = var.lustre == null ? null : {
      path   = var.lustre.mount_path
      source = module.lustre[0].mount_source
    }
  }
}

output "network" {
  description = "The cluster VPC: name, subnet self link and GPU NIC attachments."
  value = {
    name            = module.network.name
    subnet          = module.network.subnet.self_link
    gpu_attachments = module.network.gpu_attachments
  }
}

output "recipe_jobs" {
  description = "Recipe jobs keyed by name: Slurm job id, state, log path, training progress (step, first and last loss, checkpoints) and the checkpoint directory and interval in use."
  value = {
    for k, j in hypercompute_recipe_job.this : k => {
      id                   = j.id
      job_id               = j.job_id
      state                = j.state
      log_path             = j.log_path
      step                 = j.step
      first_loss           = j.first_loss
      last_loss            = j.last_loss
      checkpoints          = j.checkpoints
      last_checkpoint_step = j.last_checkpoint_step
      checkpoint_directory = j.checkpoint.directory
      checkpoint_interval  = j.checkpoint_interval
      restarts             = j.restarts
      time_lost            = j.time_lost
    }
  }
}
