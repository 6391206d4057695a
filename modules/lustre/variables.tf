variable "name" {
  description = "Managed Lustre instance ID. It cannot be changed once created."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-63 lowercase letters, digits or hyphens, start with a letter and end with a letter or digit."
  }
}

variable "project" {
  description = "Project ID. Null uses the provider's project."
  type        = string
  default     = null
}

variable "zone" {
  description = "Zone of the instance; put it in the GPU nodes' zone. Null uses the provider's zone."
  type        = string
  default     = null
}

variable "network" {
  description = "The cluster VPC, which must have private service access: a hypercompute_network's name, ID or self link (the network module's name output)."
  type        = string

  validation {
    condition     = length(var.network) > 0
    error_message = "The network must name the cluster VPC."
  }
}

variable "filesystem" {
  description = "Lustre file system name, 1-8 letters or digits; part of the mount source. Cannot be changed."
  type        = string
  default     = "lustrefs"

  validation {
    condition     = can(regex("^[A-Za-z0-9]{1,8}$", var.filesystem))
    error_message = "The file system name must be 1-8 letters or digits."
  }
}

variable "per_unit_storage_throughput" {
  description = "Throughput tier in MBps per TiB: 125, 250, 500 or 1000. Cannot be changed."
  type        = number
  default     = 1000

  validation {
    condition     = contains([125, 250, 500, 1000], var.per_unit_storage_throughput)
    error_message = "The throughput tier must be 125, 250, 500 or 1000 MBps per TiB."
  }
}

variable "capacity_gib" {
  description = "Capacity in GiB within the tier's range and steps (1000 MBps/TiB: from 9000 in steps of 9000; 500: from 18000 in steps of 18000; 250: from 36000 in steps of 36000; 125: from 72000 in steps of 72000). Grows in place, never shrinks."
  type        = number
  default     = 36000

  validation {
    condition     = floor(var.capacity_gib) == var.capacity_gib && var.capacity_gib >= 9000
    error_message = "The capacity must be a whole number of GiB, at least 9000."
  }

  validation {
    # Each tier's minimum is also its step: 9000000 GiB·MBps/TiB divided by the tier.
    condition     = var.capacity_gib % (9000000 / var.per_unit_storage_throughput) == 0
    error_message = "The capacity must be a multiple of the throughput tier's step: 9000 GiB at 1000, 18000 at 500, 36000 at 250 and 72000 at 125 MBps per TiB."
  }
}

variable "deletion_protection" {
  description = "Refuse to destroy the instance (enforced by the provider; the API has no such setting). Keep it on for checkpoints and datasets."
  type        = bool
  default     = true
}

variable "description" {
  description = "Description of the instance."
  type        = string
  default     = "Training cluster datasets and checkpoints, managed by Terraform."

  validation {
    condition     = length(var.description) <= 2048
    error_message = "The description must be at most 2048 characters."
  }
}

variable "labels" {
  description = "Labels of the instance, added to the provider's default labels."
  type        = map(string)
  default     = {}
}
