variable "project_id" {
  description = "Project to deploy the ml-staging environment into."
  type        = string
}

variable "region" {
  description = "Region of the cluster's subnet, router and NAT."
  type        = string
  default     = "us-central1"
}

variable "zone" {
  description = "Zone of the cluster's VMs and zonal storage."
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
  default     = "ml-staging"

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-32 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "subnet_cidr" {
  description = "Primary range of the cluster subnet."
  type        = string
  default     = "10.1.0.0/20"

  validation {
    condition     = can(cidrhost(var.subnet_cidr, 0))
    error_message = "The subnet CIDR must be an IPv4 range such as 10.1.0.0/20."
  }
}

variable "home_capacity_gb" {
  description = "Capacity of the Filestore /home share in GB (ZONAL tier: 1024-9984 in steps of 256)."
  type        = number
  default     = 1024

  validation {
    condition     = var.home_capacity_gb >= 1024 && var.home_capacity_gb <= 9984
    error_message = "The staging /home capacity must be between 1024 and 9984 GB."
  }
}

variable "lustre_capacity_gib" {
  description = "Capacity of Managed Lustre for datasets and checkpoints in GiB (1000 MBps/TiB tier: multiples of 9000)."
  type        = number
  default     = 18000

  validation {
    condition     = var.lustre_capacity_gib >= 9000 && var.lustre_capacity_gib % 9000 == 0
    error_message = "The Lustre capacity must be a multiple of 9000 GiB, at least 9000."
  }
}

variable "deletion_protection" {
  description = "Protect the cluster, /home and Lustre from deletion. Turn off only to tear staging down."
  type        = bool
  default     = true
}

variable "a3mega_max_nodes" {
  description = "Most A3 Mega nodes Slurm obtains through flex-start (Dynamic Workload Scheduler) for release-candidate runs; none run while idle."
  type        = number
  default     = 2

  validation {
    condition     = var.a3mega_max_nodes >= 1 && var.a3mega_max_nodes <= 16 && floor(var.a3mega_max_nodes) == var.a3mega_max_nodes
    error_message = "Staging allows between 1 and 16 A3 Mega nodes."
  }
}

variable "debug_nodes" {
  description = "Static CPU nodes of the debug partition (always running)."
  type        = number
  default     = 1

  validation {
    condition     = var.debug_nodes >= 0 && var.debug_nodes <= 16
    error_message = "The debug partition holds between 0 and 16 static nodes."
  }
}

variable "agent" {
  description = "Node agent build to run on the cluster's VMs: url (gs://BUCKET/OBJECT, https://, file:// or an absolute path) and its sha256. Leave null to use the build published with this provider release."
  type = object({
    url    = string
    sha256 = string
  })
  default = null
}
