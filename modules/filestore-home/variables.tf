variable "name" {
  description = "Filestore instance ID. It cannot be changed once created."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-63 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "project" {
  description = "Project ID. Null uses the provider's project."
  type        = string
  default     = null
}

variable "location" {
  description = "Zone of the instance (its region for the REGIONAL and ENTERPRISE tiers); put it where the cluster runs. Null uses the provider's zone or region."
  type        = string
  default     = null
}

variable "network" {
  description = "The cluster VPC: a hypercompute_network's name, ID or self link (the network module's name output)."
  type        = string

  validation {
    condition     = length(var.network) > 0
    error_message = "The network must name the cluster VPC."
  }
}

variable "reserved_ip_range" {
  description = "With private service access: the allocated range's name (null uses <network>-psa, the range the network module reserves). With direct peering: a free CIDR of the tier's size, or null to let Filestore choose."
  type        = string
  default     = null
}

variable "connect_mode" {
  description = "How the instance attaches to the network: PRIVATE_SERVICE_ACCESS or DIRECT_PEERING."
  type        = string
  default     = "PRIVATE_SERVICE_ACCESS"

  validation {
    condition     = contains(["PRIVATE_SERVICE_ACCESS", "DIRECT_PEERING"], var.connect_mode)
    error_message = "The connect mode must be PRIVATE_SERVICE_ACCESS or DIRECT_PEERING."
  }
}

variable "tier" {
  description = "Filestore service tier. It sets capacity range and steps and cannot be changed; ZONAL suits a cluster's /home."
  type        = string
  default     = "ZONAL"

  validation {
    condition     = contains(["BASIC_HDD", "BASIC_SSD", "ZONAL", "REGIONAL", "ENTERPRISE", "HIGH_SCALE_SSD"], var.tier)
    error_message = "The tier must be one of BASIC_HDD, BASIC_SSD, ZONAL, REGIONAL, ENTERPRISE or HIGH_SCALE_SSD."
  }
}

variable "protocol" {
  description = "NFS protocol: NFS_V3, or NFS_V4_1 on the ZONAL, REGIONAL and ENTERPRISE tiers. Cannot be changed."
  type        = string
  default     = "NFS_V4_1"

  validation {
    condition     = contains(["NFS_V3", "NFS_V4_1"], var.protocol)
    error_message = "The protocol must be NFS_V3 or NFS_V4_1."
  }

  validation {
    condition     = var.protocol == "NFS_V3" || contains(["ZONAL", "REGIONAL", "ENTERPRISE"], var.tier)
    error_message = "NFS_V4_1 is only offered on the ZONAL, REGIONAL and ENTERPRISE tiers; use NFS_V3 on other tiers."
  }
}

variable "capacity_gb" {
  description = "Share capacity in GiB. The tier sets the range and steps (ZONAL: 1024-9984 in steps of 256, then 10240-102400 in steps of 2560); growing is applied in place."
  type        = number
  default     = 1024

  validation {
    condition     = var.capacity_gb >= 1024 && floor(var.capacity_gb) == var.capacity_gb
    error_message = "The capacity must be a whole number of GiB, at least 1024."
  }
}

variable "share_name" {
  description = "Name of the file share, exported as /<share_name>. Cannot be changed."
  type        = string
  default     = "home"

  validation {
    condition     = can(regex("^[a-z][a-z0-9_]{0,62}$", var.share_name))
    error_message = "The share name must start with a lowercase letter and hold at most 63 lowercase letters, digits and underscores."
  }

  validation {
    condition     = length(var.share_name) <= 16 || !startswith(var.tier, "BASIC_")
    error_message = "The share name must be at most 16 characters on the BASIC_HDD and BASIC_SSD tiers."
  }
}

variable "deletion_protection" {
  description = "Filestore's own deletion protection. Keep it on for /home: a destroy is refused until it is set to false and applied."
  type        = bool
  default     = true
}

variable "deletion_protection_reason" {
  description = "Why the instance is protected, shown when a delete is refused. Used only with deletion protection on."
  type        = string
  default     = "Home directories of a training cluster."
}

variable "description" {
  description = "Description of the instance."
  type        = string
  default     = "Training cluster /home, managed by Terraform."

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
