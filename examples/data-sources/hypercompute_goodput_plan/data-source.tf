# Before buying a 30-day reservation of 1,024 H100s: what runtime goodput do
# automatic repair and asynchronous checkpoints to Lustre give, how often
# should the job checkpoint, and how many spare nodes are worth paying for?
data "hypercompute_goodput_plan" "pretrain" {
  machine_type     = "a3-megagpu-8g"
  nodes            = 128 # 1,024 GPUs
  spares           = 2
  job_length_hours = 720

  # automatic: health checks drain a failed node and repair it; manual: a person does.
  recovery = "automatic"

  # The checkpoint cost follows from where it goes and how big it is: a
  # 1,000 GiB checkpoint on a 36,000 GiB Lustre instance at 1,000 MB/s per TiB.
  checkpoint_storage  = "lustre"
  checkpoint_size_gib = 1000
  lustre_throughput   = 1000
  lustre_capacity_gib = 36000
  async_checkpoints   = true
}

output "goodput" {
  value = {
    expected_goodput    = data.hypercompute_goodput_plan.pretrain.goodput
    checkpoint_every    = "${data.hypercompute_goodput_plan.pretrain.checkpoint_interval_minutes} min"
    interruptions       = data.hypercompute_goodput_plan.pretrain.expected_interruptions
    rework_hours        = data.hypercompute_goodput_plan.pretrain.lost_rework_hours
    spares_worth_buying = data.hypercompute_goodput_plan.pretrain.best_spares
    warnings            = data.hypercompute_goodput_plan.pretrain.warnings
  }
}
