output "id" {
  description = "Instance ID, projects/{project}/locations/{location}/instances/{name}, as the training cluster's home.filestore takes it."
  value       = hypercompute_filestore.this.id
}

output "name" {
  description = "Instance name."
  value       = hypercompute_filestore.this.name
}

output "ip_address" {
  description = "IPv4 address the share is served on."
  value       = hypercompute_filestore.this.ip_address
}

output "mount_source" {
  description = "What mount -t nfs takes as its source, <ip_address>:/<share_name>."
  value       = hypercompute_filestore.this.mount_source
}

output "mount_options" {
  description = "Recommended NFS mount options for /home on this instance."
  value       = hypercompute_filestore.this.mount_options
}

output "protocol" {
  description = "NFS protocol of the share."
  value       = hypercompute_filestore.this.protocol
}
