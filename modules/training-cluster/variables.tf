variable "name" {
  description = "Cluster name: Slurm's ClusterName and the prefix of every resource (network, /home, Lustre, VMs)."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-32 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "project" {
  description = "Project ID. Null uses the provider's project."
  type        = string
  default     = null
}

variable "region" {
  description = "Region of the subnet, router and NAT; must hold the zone. Null uses the provider's region."
  type        = string
  default     = null
}

variable "zone" {
  description = "Zone of the controller, login VMs, /home, Lustre and (unless a partition says otherwise) the nodes."
  type        = string

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+-[a-z]$", var.zone))
    error_message = "The zone must be a Compute Engine zone name such as us-central1-a."
  }

  validation {
    condition     = var.region == null || startswith(var.zone, "${coalesce(var.region, "-")}-")
    error_message = "The zone must be in the region."
  }
}

variable "network" {
  description = "The cluster VPC: subnet CIDR, MTU, private service access prefix length and an optional GPU NIC stack (tcpx, tcpxo or rdma) for the GPU partitions. Every node takes one address in the subnet and, on a GPU partition, one in each GPU subnet: gpu_subnet_prefix_length sizes the GPU subnets (null: /24, 252 nodes; /21: 2,044), so it must hold the GPU partitions' static and dynamic nodes together. It can grow in place later, never shrink."
  type = object({
    subnet_cidr              = optional(string, "10.0.0.0/20")
    mtu                      = optional(number, 8896)
    psa_prefix_length        = optional(number, 20)
    gpu_stack                = optional(string)
    gpu_subnet_count         = optional(number, 8)
    gpu_subnet_prefix_length = optional(number)
  })
  default = {}

  validation {
    condition     = try(var.network.gpu_stack, null) == null || contains(["tcpx", "tcpxo", "rdma"], coalesce(try(var.network.gpu_stack, null), "-"))
    error_message = "The network's GPU stack must be tcpx, tcpxo or rdma."
  }

  validation {
    condition     = can(cidrhost(var.network.subnet_cidr, 0))
    error_message = "The network's subnet CIDR must be an IPv4 range such as 10.0.0.0/20."
  }

  validation {
    condition     = try(var.network.gpu_subnet_prefix_length, null) == null || try(var.network.gpu_subnet_prefix_length >= 8 && var.network.gpu_subnet_prefix_length <= 29 && floor(var.network.gpu_subnet_prefix_length) == var.network.gpu_subnet_prefix_length, false)
    error_message = "The GPU subnet prefix length must be a whole number between 8 and 29, such as 21 for 2,044 nodes per GPU subnet."
  }
}

variable "home" {
  description = "Filestore /home: tier, capacity in GiB and NFS protocol."
  type = object({
    tier        = optional(string, "ZONAL")
    capacity_gb = optional(number, 1024)
    protocol    = optional(string, "NFS_V4_1")
  })
  default = {}

  validation {
    condition     = var.home.capacity_gb >= 1024
    error_message = "The /home capacity must be at least 1024 GiB."
  }
}

variable "lustre" {
  description = "Managed Lustre for datasets and checkpoints, mounted at mount_path on every VM. Null creates none."
  type = object({
    capacity_gib                = optional(number, 36000)
    per_unit_storage_throughput = optional(number, 1000)
    filesystem                  = optional(string, "lustrefs")
    mount_path                  = optional(string, "/lustre")
  })
  default = null

  validation {
    condition     = var.lustre == null || can(regex("^/[^\\s]*$", try(var.lustre.mount_path, "")))
    error_message = "The Lustre mount path must be an absolute path such as /lustre."
  }
}

variable "controller_machine_type" {
  description = "Machine type of the controller VM (slurmctld, slurmrestd, the agent)."
  type        = string
  default     = "n2-standard-8"

  validation {
    condition     = can(regex("^[a-z][a-z0-9]*-[a-z0-9-]+$", var.controller_machine_type))
    error_message = "The controller machine type must be a Compute Engine machine type name such as n2-standard-8."
  }
}

variable "login" {
  description = "Login VMs: how many (0-16), their machine type, and options of their own that default to the cluster's: zone (of the cluster's region), labels (merged over the cluster's), enable_public_ip and os_login."
  type = object({
    count            = optional(number, 1)
    machine_type     = optional(string, "n2-standard-4")
    zone             = optional(string)
    labels           = optional(map(string), {})
    enable_public_ip = optional(bool)
    os_login         = optional(bool)
  })
  default = {}

  validation {
    condition     = var.login.count >= 0 && var.login.count <= 16 && floor(var.login.count) == var.login.count
    error_message = "The login count must be a whole number between 0 and 16."
  }

  validation {
    condition     = var.login.zone == null || can(regex("^[a-z]+-[a-z]+[0-9]+-[a-z]$", var.login.zone))
    error_message = "The login zone must be a Compute Engine zone name such as us-central1-b."
  }
}

variable "login_pools" {
  description = "Further groups of login VMs (<name>-login-<pool>-<i>), each with a unique name and the options of login; zone, enable_public_ip and os_login default to the cluster's."
  type = list(object({
    name             = string
    count            = optional(number, 1)
    machine_type     = optional(string, "n2-standard-4")
    zone             = optional(string)
    labels           = optional(map(string), {})
    enable_public_ip = optional(bool)
    os_login         = optional(bool)
  }))
  default = []

  validation {
    condition     = length(var.login_pools) == length(distinct([for p in var.login_pools : p.name]))
    error_message = "Login pool names must be unique."
  }
}

variable "slurm" {
  description = "Cluster-wide Slurm settings, applied in place: extra slurm.conf settings, scheduler parameters, prolog/epilog bodies, and the default suspend time and resume timeout in seconds."
  type = object({
    extra                = optional(map(string), {})
    scheduler_parameters = optional(list(string), [])
    prolog               = optional(string)
    epilog               = optional(string)
    suspend_time         = optional(number)
    resume_timeout       = optional(number)
  })
  default = {}

  validation {
    condition     = alltrue([for s in compact([try(var.slurm.prolog, null), try(var.slurm.epilog, null)]) : startswith(s, "#!")])
    error_message = "The Slurm prolog and epilog must be scripts starting with #!."
  }
}

variable "buckets" {
  description = "Cloud Storage buckets every VM mounts with Cloud Storage FUSE: bucket, absolute mount_path and profile (training or checkpointing)."
  type = list(object({
    bucket     = string
    mount_path = string
    profile    = string
    cache_dir  = optional(string)
  }))
  default = []

  validation {
    condition     = alltrue([for b in var.buckets : contains(["training", "checkpointing"], b.profile) && startswith(b.mount_path, "/")])
    error_message = "Each bucket needs the profile training or checkpointing and an absolute mount path."
  }
}

variable "partitions" {
  description = "Slurm partitions, keyed by partition name; each takes the gpu-partition module's inputs (machine_type and node counts, provisioning, placement, Slurm options, rolling_update: how static nodes are replaced when the cluster's node configuration changes)."
  type = map(object({
    machine_type            = string
    zone                    = optional(string)
    static_node_count       = optional(number, 0)
    max_dynamic_node_count  = optional(number, 0)
    provisioning_model      = optional(string, "standard")
    reservation             = optional(string)
    spot_termination_action = optional(string)
    max_run_duration        = optional(string)
    compact_placement       = optional(bool, false)
    default                 = optional(bool, false)
    exclusive               = optional(bool)
    max_time                = optional(string, "UNLIMITED")
    resume_timeout          = optional(number)
    suspend_time            = optional(number)
    resume_retry_after      = optional(number)
    features                = optional(list(string), [])
    extra                   = optional(map(string), {})
    boot_disk = optional(object({
      size_gb = optional(number)
      type    = optional(string)
    }))
    image  = optional(string)
    labels = optional(map(string), {})
    rolling_update = optional(object({
      max_unavailable = optional(string, "1")
      min_available   = optional(number, 0)
      job_timeout     = optional(string, "1h")
      on_job_timeout  = optional(string, "requeue")
    }), {})
  }))
  default = {}

  validation {
    condition     = length([for p in values(var.partitions) : p if p.default]) <= 1
    error_message = "At most one partition may be the default partition."
  }

  validation {
    condition     = alltrue([for p in values(var.partitions) : (p.reservation != null) == (p.provisioning_model == "reservation")])
    error_message = "Each partition sets reservation exactly when its provisioning_model is reservation."
  }

  validation {
    condition     = alltrue([for k in keys(var.partitions) : can(regex("^[A-Za-z][-A-Za-z0-9_]{0,39}$", k))])
    error_message = "Each partition key is its Slurm name: a letter, then at most 39 letters, digits, underscores and hyphens."
  }
}

variable "agent" {
  description = "Node agent build every VM fetches and verifies: url and sha256. Null uses the build released with the provider (a development build of the provider requires it)."
  type = object({
    url    = string
    sha256 = string
  })
  default = null

  validation {
    condition     = var.agent == null || can(regex("^[0-9a-f]{64}$", try(var.agent.sha256, "")))
    error_message = "The agent sha256 must be 64 lowercase hexadecimal digits."
  }
}

variable "deletion_protection" {
  description = "Protect the cluster, /home and Lustre from deletion. Keep true outside throw-away environments."
  type        = bool
  default     = true
}

variable "labels" {
  description = "Labels of every VM and storage instance, added to the provider's default labels."
  type        = map(string)
  default     = {}
}

variable "recipe_jobs" {
  description = "Training runs from the provider's recipe catalog (recipe.model, size, mode) or the team's own programs (recipe.custom), keyed by job name; each runs on one of the module's partitions. See the hypercompute_recipe_job resource for what every field means."
  type = map(object({
    partition = string
    recipe = object({
      model = optional(string)
      size  = optional(string)
      mode  = optional(string)
      custom = optional(object({
        command         = optional(string)
        script          = optional(string)
        gpus_per_node   = optional(number)
        environment     = optional(map(string))
        container_image = optional(string)
        flops_per_step  = optional(number)
      }))
    })
    nodes = optional(number)
    overrides = optional(object({
      max_steps       = optional(number)
      hyperparameters = optional(map(string))
      container_image = optional(string)
      precision       = optional(string)
      env             = optional(map(string))
    }))
    checkpoint = optional(object({
      directory   = optional(string)
      interval    = optional(string)
      keep_last   = optional(number)
      resume_from = optional(string)
    }))
    tensorboard_dir = optional(string)
    export_path     = optional(string)
    time_limit      = optional(string)
    wait_for        = optional(string, "running")
    create_timeout  = optional(string)
  }))
  default = {}

  validation {
    condition     = alltrue([for k in keys(var.recipe_jobs) : can(regex("^[A-Za-z][-A-Za-z0-9_]{0,62}$", k))])
    error_message = "Each recipe job key is its job name: a letter, then at most 62 letters, digits, underscores and hyphens."
  }

  validation {
    condition     = alltrue([for j in values(var.recipe_jobs) : contains(keys(var.partitions), j.partition)])
    error_message = "Each recipe job runs on one of the module's partitions: its partition must be a key of var.partitions."
  }

  validation {
    condition     = alltrue([for j in values(var.recipe_jobs) : contains(["submitted", "running", "completed"], j.wait_for)])
    error_message = "Each recipe job's wait_for is submitted, running or completed."
  }

  validation {
    condition = alltrue([for j in values(var.recipe_jobs) : j.checkpoint == null ? true : (
      try(j.checkpoint.interval, null) == null ? true : can(regex("^(auto|([0-9]+(\\.[0-9]+)?(h|m|s))+|[0-9]+d)$", j.checkpoint.interval))
    )])
    error_message = "Each recipe job's checkpoint interval is a duration such as \"90s\", \"30m\" or \"2h\", or \"auto\"."
  }
}
