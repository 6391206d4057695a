# What the cluster's health policy found and did: nodes out of service with their reason, and the
# repairs running now.
data "hypercompute_cluster_health" "prod" {
  cluster = hypercompute_training_cluster.prod.id
}

output "nodes_out_of_service" {
  value = { for n in data.hypercompute_cluster_health.prod.nodes : n.name => n.reason if n.in_service_since == "" }
}

output "repairs_in_progress" {
  value = [for r in data.hypercompute_cluster_health.prod.repairs_in_progress : "${r.node}: ${r.action} (${r.check}) since ${r.started}"]
}
