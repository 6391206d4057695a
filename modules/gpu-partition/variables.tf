variable "cluster" {
  description = "The training cluster's ID (hypercompute_training_cluster.<name>.id, projects/{project}/zones/{zone}/clusters/{name})."
  type        = string

  validation {
    condition     = can(regex("^projects/[^/]+/zones/[^/]+/clusters/[^/]+$", var.cluster))
    error_message = "The cluster must be a training cluster ID of the form projects/{project}/zones/{zone}/clusters/{name}."
  }
}

variable "name" {
  description = "Slurm partition name: a letter, then letters, digits, underscores and hyphens, at most 40 characters."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z][-A-Za-z0-9_]{0,39}$", var.name))
    error_message = "The partition name must start with a letter and hold at most 40 letters, digits, underscores and hyphens."
  }
}

variable "machine_type" {
  description = "Machine type of every node, e.g. a3-megagpu-8g, a4-highgpu-8g, g2-standard-48 or n2-standard-8. Machine types with GPUs (per the provider's machine table) get GPU defaults."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9]*-[a-z0-9-]+$", var.machine_type))
    error_message = "The machine type must be a Compute Engine machine type name such as a3-megagpu-8g."
  }
}

variable "zone" {
  description = "Zone of the nodes. Null uses the cluster's zone."
  type        = string
  default     = null
}

variable "static_node_count" {
  description = "Nodes that always exist, created by Terraform and never powered down. Must be 0 with provisioning_model flex_start, whose VMs Compute deletes after max_run_duration."
  type        = number
  default     = 0

  validation {
    condition     = var.static_node_count >= 0 && floor(var.static_node_count) == var.static_node_count
    error_message = "The static node count must be a whole number, zero or more."
  }

  # Compute deletes a flex-start VM once it has run max_run_duration (7 days at most).
  validation {
    condition     = !(var.provisioning_model == "flex_start" && var.static_node_count > 0)
    error_message = "Flex-start nodes cannot be static: Compute deletes a flex-start VM after its max_run_duration (7 days at most), so set static_node_count to 0 and max_dynamic_node_count to the most nodes Slurm may obtain for jobs, or use provisioning_model standard or reservation for nodes that always run."
  }
}

variable "max_dynamic_node_count" {
  description = "Most nodes Slurm creates on demand and deletes after suspend_time idle."
  type        = number
  default     = 0

  validation {
    condition     = var.max_dynamic_node_count >= 0 && floor(var.max_dynamic_node_count) == var.max_dynamic_node_count
    error_message = "The dynamic node count must be a whole number, zero or more."
  }

  validation {
    condition     = var.static_node_count + var.max_dynamic_node_count > 0
    error_message = "A partition needs at least one node: set static_node_count or max_dynamic_node_count above zero."
  }
}

variable "provisioning_model" {
  description = "How nodes are obtained: standard (on-demand), spot, flex_start (Dynamic Workload Scheduler) or reservation."
  type        = string
  default     = "standard"

  validation {
    condition     = contains(["standard", "spot", "flex_start", "reservation"], var.provisioning_model)
    error_message = "The provisioning model must be standard, spot, flex_start or reservation."
  }
}

variable "reservation" {
  description = "Reservation consumed when provisioning_model is reservation: NAME, or projects/{project}/reservations/NAME for a shared one, optionally with /reservationBlocks/{block}."
  type        = string
  default     = null

  validation {
    condition     = (var.reservation != null) == (var.provisioning_model == "reservation")
    error_message = "Set reservation exactly when provisioning_model is reservation."
  }
}

variable "spot_termination_action" {
  description = "Spot only: what a preemption does, DELETE (Slurm recreates the node on demand) or STOP."
  type        = string
  default     = null

  validation {
    condition     = var.spot_termination_action == null || (contains(["DELETE", "STOP"], coalesce(var.spot_termination_action, "-")) && var.provisioning_model == "spot")
    error_message = "The spot termination action must be DELETE or STOP, and is only for provisioning_model spot."
  }
}

variable "max_run_duration" {
  description = "Flex-start only: how long a node may run, 30s to 7d (e.g. 90m, 24h, 7d)."
  type        = string
  default     = null

  validation {
    condition     = var.max_run_duration == null || (can(regex("^[0-9]+[smhd]$", coalesce(var.max_run_duration, "-"))) && var.provisioning_model == "flex_start")
    error_message = "The max run duration must be a number followed by s, m, h or d (such as 24h), and is only for provisioning_model flex_start."
  }
}

variable "compact_placement" {
  description = "Place the nodes close together with one compact placement policy (not for A3 Ultra, A4, A4X, E2 and G2, whose placement comes from elsewhere)."
  type        = bool
  default     = false
}

variable "default_partition" {
  description = "Jobs that name no partition go here. At most one partition of a cluster may be the default."
  type        = bool
  default     = false
}

variable "exclusive" {
  description = "Jobs get whole nodes. Null means true on machine types with GPUs and false otherwise."
  type        = bool
  default     = null
}

variable "max_time" {
  description = "Longest job: UNLIMITED, minutes, hours:minutes:seconds or days-hours[:minutes[:seconds]]."
  type        = string
  default     = "UNLIMITED"

  validation {
    condition     = can(regex("^(UNLIMITED|[0-9]+|[0-9]+:[0-9]{2}:[0-9]{2}|[0-9]+-[0-9]+(:[0-9]{2}(:[0-9]{2})?)?)$", var.max_time))
    error_message = "The max time must be UNLIMITED, minutes, hours:minutes:seconds or days-hours[:minutes[:seconds]], such as 7-00:00:00."
  }
}

variable "resume_timeout" {
  description = "Seconds a powered-down node may take to boot and register. Null means the provider's minimum for the machine type (longer on GPU machines, whose images and drivers boot slowly) and the cluster's setting otherwise."
  type        = number
  default     = null

  validation {
    condition     = var.resume_timeout == null || try(var.resume_timeout >= 60 && var.resume_timeout <= 7200, false)
    error_message = "The resume timeout must be between 60 and 7200 seconds."
  }
}

variable "suspend_time" {
  description = "Seconds a dynamic node stays idle before it is deleted. Null uses the cluster's setting."
  type        = number
  default     = null

  validation {
    condition     = var.suspend_time == null || try(var.suspend_time >= 60, false)
    error_message = "The suspend time must be at least 60 seconds."
  }
}

variable "resume_retry_after" {
  description = "Seconds a dynamic node whose VM could not be created (a stockout, a quota) stays down and powered down before the controller returns it to service, so a waiting job makes Slurm try again. 0 never retries. Null uses the provider's default (600)."
  type        = number
  default     = null

  validation {
    condition     = var.resume_retry_after == null || try(var.resume_retry_after >= 0 && var.resume_retry_after <= 86400, false)
    error_message = "The resume retry must be between 0 (never) and 86400 seconds."
  }
}

variable "features" {
  description = "Slurm node features added to the machine's own (family, profile, GPU type, architecture)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for f in var.features : can(regex("^[A-Za-z0-9_.-]+$", f))])
    error_message = "Each feature must be letters, digits, dots, underscores or hyphens."
  }
}

variable "slurm_extra" {
  description = "Further PartitionName settings, such as DefaultTime or PriorityTier; the provider checks them against the settings it allows."
  type        = map(string)
  default     = {}
}

variable "slurm_partition" {
  description = "Slurm partition these nodes join, formed with other node sets (e.g. reserved, then Spot, then flex-start nodes of one GPU family). Null: a partition of its own, named after the node set. Node sets of one partition must agree on default_partition, exclusive, max_time, resume_timeout, suspend_time and slurm_extra."
  type        = string
  default     = null

  validation {
    condition     = var.slurm_partition == null || (can(regex("^[A-Za-z][A-Za-z0-9_-]{0,39}$", coalesce(var.slurm_partition, "x"))) && lower(coalesce(var.slurm_partition, "x")) != "default")
    error_message = "The Slurm partition must start with a letter and hold at most 40 letters, digits, underscores and hyphens, and must not be DEFAULT."
  }
}

variable "node_weight" {
  description = "Slurm node Weight of these nodes: Slurm fills the lowest-weight node set of a partition first. Null takes the provisioning model's default (reservation 10, standard 20, spot 30, flex_start 40)."
  type        = number
  default     = null

  validation {
    condition     = var.node_weight == null || (floor(coalesce(var.node_weight, 1)) == coalesce(var.node_weight, 1) && coalesce(var.node_weight, 1) >= 1 && coalesce(var.node_weight, 1) <= 1000000)
    error_message = "The node weight must be a whole number from 1 to 1000000."
  }
}

variable "boot_disk" {
  description = "Boot disk of each node. Null uses the machine family's default (200 GB on GPU machines)."
  type = object({
    size_gb = optional(number)
    type    = optional(string)
  })
  default = null

  validation {
    condition     = try(var.boot_disk.type, null) == null || contains(["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"], try(var.boot_disk.type, ""))
    error_message = "The boot disk type must be pd-standard, pd-balanced, pd-ssd or hyperdisk-balanced."
  }
}

variable "image" {
  description = "Boot image. Null uses the image the catalog pins for the machine type, with its driver and NCCL plugin."
  type        = string
  default     = null
}

variable "allow_partial" {
  description = "On a stockout keep the static nodes that could be created (and try for the rest on the next apply) instead of all-or-nothing."
  type        = bool
  default     = false
}

variable "force_scale_down" {
  description = "When static_node_count goes down, delete removed nodes at once even if jobs run on them, instead of draining them."
  type        = bool
  default     = false
}

variable "labels" {
  description = "Labels of the partition's VMs, added to the provider's default labels."
  type        = map(string)
  default     = {}
}

variable "cluster_node_config_hash" {
  description = "The cluster's node_config_hash. Pass it so that a cluster change that affects nodes (agent build, mounts, controller) shows in this partition's plan and replaces its static nodes one batch at a time (rolling_update)."
  type        = string
  default     = null
}

variable "rolling_update" {
  description = "How static nodes are replaced when the cluster's node configuration changes: max_unavailable nodes (\"2\" or \"25%\") at a time, never fewer than min_available in service; jobs on a node being replaced get job_timeout to end, then on_job_timeout (\"requeue\" or \"fail\") applies."
  type = object({
    max_unavailable = optional(string, "1")
    min_available   = optional(number, 0)
    job_timeout     = optional(string, "1h")
    on_job_timeout  = optional(string, "requeue")
  })
  default = {}

  validation {
    condition     = can(regex("^[0-9]+%?$", var.rolling_update.max_unavailable))
    error_message = "The rolling update's max_unavailable must be a number of nodes or a percentage such as \"25%\"."
  }

  validation {
    condition     = contains(["requeue", "fail"], var.rolling_update.on_job_timeout)
    error_message = "The rolling update's on_job_timeout must be requeue or fail."
  }
}
