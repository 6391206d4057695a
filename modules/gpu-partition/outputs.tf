output "id" {
  description = "Partition ID, the cluster's ID followed by /partitions/{name}."
  value       = hypercompute_node_partition.this.id
}

output "name" {
  description = "Slurm partition name."
  value       = hypercompute_node_partition.this.name
}

output "machine_type" {
  description = "Machine type of every node."
  value       = hypercompute_node_partition.this.machine_type
}

output "is_gpu" {
  description = "Whether the machine type has GPUs and got the GPU defaults."
  value       = local.is_gpu
}

output "gpus_per_node" {
  description = "GPUs per node, from the provider's machine table (0 on CPU machines)."
  value       = data.hypercompute_machine_type.this.gpu_count
}

output "machine_profile" {
  description = "The machine's profile in the provider's table (a3-high, a3-mega, a3-ultra, a4, a4x, g2, or the family of a CPU machine)."
  value       = data.hypercompute_machine_type.this.profile
}

output "node_name_prefix" {
  description = "Static nodes are <node_name_prefix>-<index>, dynamic ones <node_name_prefix>-d<index>; also the hypercompute-partition label on every VM."
  value       = hypercompute_node_partition.this.node_name_prefix
}

output "static_node_names" {
  description = "Slurm hostlist of the static nodes."
  value       = hypercompute_node_partition.this.static_node_names
}

output "dynamic_node_names" {
  description = "Slurm hostlist of the nodes Slurm creates on demand."
  value       = hypercompute_node_partition.this.dynamic_node_names
}

output "instance_template" {
  description = "Instance template every node is created from."
  value       = hypercompute_node_partition.this.instance_template
}

output "placement_policy" {
  description = "Compact placement policy, or empty."
  value       = hypercompute_node_partition.this.placement_policy
}
