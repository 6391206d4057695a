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
