variable "name" {
  description = "Filestore instance ID. It cannot be changed once created."
  type        = string
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
}

variable "tier" {
  description = "Filestore service tier. It sets capacity range and steps and cannot be changed; ZONAL suits a cluster's /home."
  type        = string
  default     = "ZONAL"
}

variable "protocol" {
  description = "NFS protocol, NFS_V3 or NFS_V4_1 (the provider checks at plan which tiers offer it). Cannot be changed."
  type        = string
  default     = "NFS_V4_1"
}

variable "capacity_gb" {
  description = "Share capacity in GiB. The tier sets the range and steps, which the provider checks at plan (naming the nearest valid sizes); growing is applied in place."
  type        = number
  default     = 1024
}

variable "share_name" {
  description = "Name of the file share, exported as /<share_name>. Cannot be changed."
  type        = string
  default     = "home"
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
}

variable "labels" {
  description = "Labels of the instance, added to the provider's default labels."
  type        = map(string)
  default     = {}
}
