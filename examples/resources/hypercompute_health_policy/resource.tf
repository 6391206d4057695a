# Health checks for the GPU partition of a training cluster: GPU count and XIDs at boot and in every
# job's prolog, uncorrected ECC errors and NVLink counters every minute, a DCGM level-2 diagnostic
# at boot, NCCL bus bandwidth against the family's pass threshold, GPU memory repairs (a pending
# row remap takes a reboot, unrepairable memory a replace), and free space on /tmp. A node
# that fails is drained with the check's reason, its jobs are requeued (they resume from their
# checkpoint) and it is rebooted; one that fails again within 24 hours of a repair is replaced on
# a new host. At most two repairs run at once and at most 10% of the partition is out of service.
resource "hypercompute_health_policy" "gpu" {
  cluster    = hypercompute_training_cluster.prod.id
  name       = "gpu"
  partitions = [hypercompute_node_partition.a3mega.name]

  interval_seconds        = 60
  escalation              = ["reboot", "replace"]
  escalation_window_hours = 24

  limits = {
    max_concurrent_repairs  = 2
    max_unavailable_percent = 10
    cooldown_seconds        = 60
  }

  checks = [
    { name = "gpu", schedules = ["boot", "prolog"], xids = [48, 63, 64, 74, 79, 94, 95], action = "replace" },
    { name = "ecc", schedules = ["periodic", "epilog"], max_uncorrected_ecc = 0, action = "reboot" },
    { name = "nvlink", schedules = ["periodic"], action = "reboot" },
    { name = "remapped_rows", schedules = ["periodic", "epilog"] },
    { name = "unrepairable_memory", schedules = ["boot", "periodic"] },
    { name = "dcgm", schedules = ["boot"], dcgm_level = 2, action = "reboot" },
    { name = "nccl", schedules = ["boot"], action = "replace" },
    { name = "disk", schedules = ["periodic"], paths = ["/", "/tmp"], min_free_gb = 20 },
    { name = "mounts", schedules = ["periodic", "prolog"], paths = ["/home", "/lustre"], timeout_seconds = 10, action = "reboot" },
  ]
}
