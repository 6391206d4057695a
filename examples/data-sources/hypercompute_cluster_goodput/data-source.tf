# Goodput the cluster measured from its Slurm accounting records over the last 7 days; the
# cluster needs an accounting block (accounting = {} keeps records in MariaDB on the controller).
data "hypercompute_cluster_goodput" "prod" {
  cluster = hypercompute_training_cluster.prod.id
  window  = "7d"
}

output "runtime_goodput_by_partition" {
  value = { for name, p in data.hypercompute_cluster_goodput.prod.partitions : name => format("%.1f%%", 100 * p.runtime_goodput) }
}

output "jobs_that_lost_time" {
  value = [for j in data.hypercompute_cluster_goodput.prod.jobs : "${j.job_id} ${j.name}: ${j.lost_seconds} s lost, ${j.restarts} restarts" if j.lost_seconds > 0]
}

# Program goodput (MFU) per partition, where recipe jobs reported one (null otherwise).
output "mfu_by_partition" {
  value = { for name, p in data.hypercompute_cluster_goodput.prod.partitions : name => format("%.1f%%", 100 * p.program_goodput) if p.program_goodput != null }
}
