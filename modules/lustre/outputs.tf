output "id" {
  description = "Instance ID, projects/{project}/locations/{zone}/instances/{name}, as the training cluster's lustre.instance takes it."
  value       = hypercompute_lustre.this.id
}

output "name" {
  description = "Instance name."
  value       = hypercompute_lustre.this.name
}

output "mount_source" {
  description = "What mount -t lustre takes as its source, <ip>@tcp:/<filesystem>."
  value       = hypercompute_lustre.this.mount_source
}

output "ip_address" {
  description = "IPv4 address of the instance's management server."
  value       = hypercompute_lustre.this.ip_address
}

output "capacity_gib" {
  description = "Capacity in GiB."
  value       = hypercompute_lustre.this.capacity_gib
}
