# An A3 Mega partition on a shared reservation with compact placement, added to an existing
# training cluster. GPU defaults (exclusive nodes, 1200 s resume timeout) come from the module.
provider "hypercompute" {
  project = var.project_id
  region  = "us-central1"
  zone    = "us-central1-a"
}

module "a3mega" {
  source = "../.."

  cluster      = var.cluster_id
  name         = "a3mega"
  machine_type = "a3-megagpu-8g"

  static_node_count      = 2
  max_dynamic_node_count = 6

  provisioning_model = "reservation"
  reservation        = "projects/ml-capacity/reservations/a3mega-us-central1-a"
  compact_placement  = true

  default_partition = true
  max_time          = "7-00:00:00"
  features          = ["tcpxo"]
}

output "static_nodes" {
  description = "Slurm hostlist of the always-on nodes."
  value       = module.a3mega.static_node_names
}
