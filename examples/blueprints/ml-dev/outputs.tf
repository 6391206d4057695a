output "network" {
  description = "The cluster network's self link."
  value       = hypercompute_network.cluster.self_link
}

output "subnet" {
  description = "The primary subnet every cluster VM uses."
  value       = hypercompute_network.cluster.subnet.self_link
}

output "private_service_access_range" {
  description = "The range Filestore and Managed Lustre are allocated from."
  value       = hypercompute_network.cluster.private_service_access.range_name
}

output "firewall_rules" {
  description = "The only ingress rules the network has."
  value       = hypercompute_network.cluster.firewall_rules
}

output "home_mount" {
  description = "What every node mounts at /home: source and NFS options."
  value       = "${hypercompute_filestore.home.mount_source} (${hypercompute_filestore.home.mount_options})"
}

output "lustre_mount" {
  description = "What every node mounts at /lustre."
  value       = hypercompute_lustre.data.mount_point
}

output "controller" {
  description = "The Slurm controller VM."
  value       = hypercompute_training_cluster.ml.controller
}

output "ssh_command" {
  description = "How to reach the cluster: SSH through Identity-Aware Proxy (no public IPs)."
  value       = hypercompute_training_cluster.ml.ssh_command
}

output "config_hash" {
  description = "Hash of the cluster's own Slurm configuration (not its partitions): it changes only with the cluster's Slurm settings."
  value       = hypercompute_training_cluster.ml.config_hash
}

output "partitions" {
  description = "Slurm partitions and their nodes."
  value = {
    debug = hypercompute_node_partition.debug.node_names
    l4    = hypercompute_node_partition.l4.node_names
  }
}

output "training" {
  description = "The tiny-gpt training run: Slurm job id and state, steps, first and last loss, checkpoints and where they are."
  value = {
    job_id               = hypercompute_recipe_job.tiny_gpt.job_id
    state                = hypercompute_recipe_job.tiny_gpt.state
    steps                = hypercompute_recipe_job.tiny_gpt.step
    first_loss           = hypercompute_recipe_job.tiny_gpt.first_loss
    last_loss            = hypercompute_recipe_job.tiny_gpt.last_loss
    checkpoints          = hypercompute_recipe_job.tiny_gpt.checkpoints
    last_checkpoint_step = hypercompute_recipe_job.tiny_gpt.last_checkpoint_step
    checkpoint_directory = hypercompute_recipe_job.tiny_gpt.checkpoint.directory
    log_path             = hypercompute_recipe_job.tiny_gpt.log_path
  }
}
