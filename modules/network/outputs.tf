output "name" {
  description = "Name of the VPC, as storage and cluster resources reference it."
  value       = hypercompute_network.this.name
}

output "id" {
  description = "ID of the VPC, projects/{project}/global/networks/{name}."
  value       = hypercompute_network.this.id
}

output "self_link" {
  description = "Self link of the VPC."
  value       = hypercompute_network.this.self_link
}

output "subnet" {
  description = "The primary subnet every cluster VM's first NIC uses: name, self_link, id and gateway_address."
  value       = hypercompute_network.this.subnet
}

output "private_service_access_range" {
  description = "Name of the reserved range Filestore and Managed Lustre are allocated from, or null when private service access is disabled."
  value       = var.private_service_access == null ? null : hypercompute_network.this.private_service_access.range_name
}

output "firewall_rules" {
  description = "Names of the firewall rules the network owns (the only ingress it allows)."
  value       = hypercompute_network.this.firewall_rules
}

output "router_name" {
  description = "Cloud Router name, empty when NAT is disabled."
  value       = hypercompute_network.this.router_name
}

output "gpu_attachments" {
  description = "One entry per GPU NIC (network, subnetwork, nic_type) in NIC order, or an empty list without a GPU network set."
  value       = var.gpu_networks == null ? [] : hypercompute_network.this.gpu_networks.attachments
}
