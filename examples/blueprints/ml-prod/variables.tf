variable "project_id" {
  description = "Project to deploy the ml-prod environment into."
  type        = string
}

variable "region" {
  description = "Region of the cluster's subnet, router and NAT."
  type        = string
  default     = "us-central1"
}

variable "zone" {
  description = "Zone of the cluster's VMs, storage and the A3 Mega reservation."
  type        = string
  default     = "us-central1-a"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+-[a-z]$", var.zone))
    error_message = "The zone must be a Compute Engine zone name such as us-central1-a."
  }
}

variable "name" {
  description = "Name of the environment; prefixes every resource."
  type        = string
  default     = "ml-prod"

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-32 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "subnet_cidr" {
  description = "Primary range of the cluster subnet."
  type        = string
  default     = "10.0.0.0/20"

  validation {
    condition     = can(cidrhost(var.subnet_cidr, 0))
    error_message = "The subnet CIDR must be an IPv4 range such as 10.0.0.0/20."
  }
}

variable "gpu_subnet_prefix_length" {
  description = "Prefix length of the eight TCPXO GPU subnets. Every A3 Mega node takes one address in each, and a /p holds 2^(32-p) - 4 nodes: the default /21 holds 2,044, room for the largest A3 Mega partition (1,500). A smaller number grows the subnets in place; a larger one is refused."
  type        = number
  default     = 21

  validation {
    condition     = var.gpu_subnet_prefix_length >= 19 && var.gpu_subnet_prefix_length <= 24 && floor(var.gpu_subnet_prefix_length) == var.gpu_subnet_prefix_length
    error_message = "The GPU subnet prefix length must be a whole number between 19 (the largest slot 192.168.0.0/16 gives each of the eight subnets) and 24."
  }

  validation {
    condition     = pow(2, 32 - var.gpu_subnet_prefix_length) - 4 >= var.a3mega_static_nodes + var.a3mega_dynamic_nodes
    error_message = "The GPU subnets must hold every A3 Mega node, static and dynamic: lower gpu_subnet_prefix_length (each step down doubles them) or the node counts."
  }
}

variable "home_capacity_gb" {
  description = "Capacity of the Filestore /home share in GB (ZONAL tier: 1024-9984 in steps of 256, then 10240-102400 in steps of 2560)."
  type        = number
  default     = 5120

  validation {
    condition     = var.home_capacity_gb >= 1024 && var.home_capacity_gb <= 102400
    error_message = "The /home capacity must be between 1024 and 102400 GB on the ZONAL tier."
  }
}

variable "lustre_capacity_gib" {
  description = "Capacity of Managed Lustre for datasets and checkpoints in GiB (1000 MBps/TiB tier: multiples of 9000 up to 1530000, then of 72000)."
  type        = number
  default     = 144000

  validation {
    condition     = var.lustre_capacity_gib >= 9000 && var.lustre_capacity_gib % 9000 == 0
    error_message = "The Lustre capacity must be a multiple of 9000 GiB, at least 9000."
  }
}

variable "a3mega_reservation" {
  description = "Reservation the A3 Mega partition consumes: NAME, or projects/{project}/reservations/NAME for one shared from a capacity project."
  type        = string

  validation {
    condition     = can(regex("^([a-z]([-a-z0-9]{0,61}[a-z0-9])?|projects/[^/]+/reservations/[a-z]([-a-z0-9]{0,61}[a-z0-9])?)(/reservationBlocks/[^/]+)?$", var.a3mega_reservation))
    error_message = "The A3 Mega reservation must be NAME or projects/{project}/reservations/NAME, optionally followed by /reservationBlocks/{block}."
  }
}

variable "a3mega_static_nodes" {
  description = "A3 Mega nodes that always run, consuming the reservation (8 H100 each)."
  type        = number
  default     = 16

  validation {
    condition     = var.a3mega_static_nodes >= 0 && var.a3mega_static_nodes <= 1500 && floor(var.a3mega_static_nodes) == var.a3mega_static_nodes
    error_message = "The A3 Mega static node count must be a whole number between 0 and 1500, the compact placement limit."
  }
}

variable "a3mega_dynamic_nodes" {
  description = "Further A3 Mega nodes Slurm creates from the reservation when jobs wait and deletes when idle."
  type        = number
  default     = 16

  validation {
    condition     = var.a3mega_dynamic_nodes >= 0 && var.a3mega_static_nodes + var.a3mega_dynamic_nodes <= 1500 && floor(var.a3mega_dynamic_nodes) == var.a3mega_dynamic_nodes
    error_message = "The A3 Mega partition may hold at most 1500 nodes, static and dynamic together."
  }
}

variable "eval_max_nodes" {
  description = "Most G2 (L4) Spot nodes for evaluation jobs; none exist until a job asks for them."
  type        = number
  default     = 8

  validation {
    condition     = var.eval_max_nodes >= 1 && var.eval_max_nodes <= 64 && floor(var.eval_max_nodes) == var.eval_max_nodes
    error_message = "The eval partition must allow between 1 and 64 nodes."
  }
}

variable "login_count" {
  description = "Number of login VMs."
  type        = number
  default     = 2

  validation {
    condition     = var.login_count >= 1 && var.login_count <= 16
    error_message = "Production keeps between 1 and 16 login VMs."
  }
}

variable "deletion_protection" {
  description = "Protect the cluster, /home and Lustre from deletion (on by default). Tearing ml-prod down takes two steps: apply with deletion_protection = false (an in-place change that deletes nothing), then terraform destroy with the same value. A destroy while it is on fails at the cluster (its partitions, which have no protection of their own, may be gone by then)."
  type        = bool
  default     = true
}

variable "agent" {
  description = "Node agent build to run on the cluster's VMs: url (gs://BUCKET/OBJECT, https://, file:// or an absolute path) and its sha256. Leave null to use the build published with this provider release."
  type = object({
    url    = string
    sha256 = string
  })
  default = null
}
