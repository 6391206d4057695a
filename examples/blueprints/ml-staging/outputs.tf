output "ssh_command" {
  description = "How to reach the cluster: SSH through Identity-Aware Proxy to the first login VM."
  value       = module.cluster.ssh_command
}

output "controller" {
  description = "The Slurm controller VM."
  value       = module.cluster.controller
}

output "cluster_id" {
  description = "ID of the training cluster, for partitions and recipe jobs defined elsewhere."
  value       = module.cluster.cluster_id
}

output "partitions" {
  description = "Slurm partitions and their nodes."
  value       = module.cluster.partitions
}

output "mounts" {
  description = "What every node mounts at /home and /lustre."
  value       = module.cluster.mounts
}

output "config_hash" {
  description = "Hash of the cluster's own Slurm configuration (not its partitions): it changes only with the cluster's Slurm settings."
  value       = module.cluster.config_hash
}
